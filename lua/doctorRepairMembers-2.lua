--[[
  Repairs what one chunk of the doctor's sorted-set pass found: each member whose body is absent
  is removed, with the fields kept for it (`<id>:<suffix>`, suffixes in ARGV), only while its body
  is still absent, checked here in the same atomic step. A message that has its body is never
  touched: every send writes the member and the body together.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] how many suffixes follow (n)
  ARGV[2 .. n+1] the per-message suffixes (MESSAGE_FIELD_SUFFIXES: rc fr dl tp at)
  ARGV[n+2 ..] the members

  Returns one integer per member: 1 removed, 0 no longer out of place (nothing done).
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local suffixCount = tonumber(ARGV[1])

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.
local refused = refusedCommand("zrem", "hdel")
if refused then
  return refused
end

local repaired = {}
for i = suffixCount + 2, #ARGV do
  local member = ARGV[i]
  local done = 0
  if rcall("HEXISTS", queueHash, member) == 0 and rcall("ZREM", queueSet, member) == 1 then
    done = 1
    for s = 2, suffixCount + 1 do
      rcall("HDEL", queueHash, member .. ":" .. ARGV[s])
    end
  end
  repaired[#repaired + 1] = done
end
return repaired
