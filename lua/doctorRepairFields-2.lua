--[[
  Repairs what one chunk of the doctor's hash pass found, each item checked again here, in the same
  atomic step as its repair, so that a send, receive or delete that ran since the look is never
  undone:
  - fieldWithoutMessage `<id>:<suffix>`: removed, only while `<id>` is still absent;
  - bodyWithoutMember `<id>`: put back in the sorted set, visible now (server clock), only while
    the body is still there and not a member (the message is kept, and delivered again);
  - staleFairTag `~fq:<tenant>`: removed, only while its tag is still below every level's head
    (fairStaleBelow, lua/shared/fair-stale.lua): a send since then wrote a live one.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV    kind1, field1, kind2, field2, ... (as doctorFields-2.lua returns them)

  Returns one integer per item: 1 repaired, 0 no longer out of place (nothing done).
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local ID = string.rep("%w", 32)

-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()
local now = string.format("%d", nowMs)

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.
local refused = refusedCommand("hdel", "zadd", "hexists", "zscore", "hget", "zrangebyscore")
if refused then
  return refused
end

-- fairStaleBelow(...) is lua/shared/fair-stale.lua, which the loader puts before this script.
local repaired, staleBelow = {}, nil
for i = 1, #ARGV, 2 do
  local kind, field = ARGV[i], ARGV[i + 1]
  local done = 0
  if kind == "fieldWithoutMessage" then
    local owner = string.match(field, "^(" .. ID .. "):.+$")
    if owner and rcall("HEXISTS", queueHash, owner) == 0 then
      done = rcall("HDEL", queueHash, field)
    end
  elseif kind == "staleFairTag" then
    local text = rcall("HGET", queueHash, field)
    local tag = text and tonumber(text)
    staleBelow = staleBelow or fairStaleBelow(queueSet)
    -- A tag that is no number (written by hand) is read by no send either.
    if text and (not tag or tag < staleBelow) then
      done = rcall("HDEL", queueHash, field)
    end
  elseif kind == "bodyWithoutMember" then
    if rcall("HEXISTS", queueHash, field) == 1 and not rcall("ZSCORE", queueSet, field) then
      done = rcall("ZADD", queueSet, now, field)
    end
  end
  repaired[#repaired + 1] = done
end
return repaired
