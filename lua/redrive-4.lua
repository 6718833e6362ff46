--[[
  Moves messages from a dead-letter queue back to a queue as new messages: visible now, receive
  count and first-receive time reset, `why` removed. All of them in one atomic step. It moves what
  the cross-slot redrive (redriveClaim-2, redriveCopy-2) moves, and counts the same: a message
  someone holds (received from the dead-letter queue, hidden) stays, and `totalsent` counts a
  message once, not again when it is already in the target (a cross-slot redrive cut short).

  KEYS[1] dead-letter sorted set  <ns>:<dlq>
  KEYS[2] dead-letter hash        <ns>:<dlq>:Q
  KEYS[3] target sorted set       <ns>:<target>
  KEYS[4] target hash             <ns>:<target>:Q
  ARGV    message ids

  Returns how many were moved (an id no longer in the dead-letter queue, or hidden there, is
  skipped), or -1 when the target queue does not exist (nothing is moved then).
]]
local rcall = redis.call
local deadSet, deadHash, targetSet, targetHash = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

if rcall("HEXISTS", targetHash, "vt") == 0 then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()
local now = string.format("%d", nowMs)
local refused = refusedCommand("hdel", "zadd", "hset", "hincrby")
if refused then
  return refused
end
local moved = 0
for _, id in ipairs(ARGV) do
  local body = rcall("HGET", deadHash, id)
  local score = rcall("ZSCORE", deadSet, id)
  if body and score and tonumber(score) <= nowMs then
    rcall("ZREM", deadSet, id)
    rcall("HDEL", deadHash, id, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":tp", id .. ":at")
    if rcall("ZADD", targetSet, now, id) == 1 then
      rcall("HINCRBY", targetHash, "totalsent", 1)
    end
    rcall("HSET", targetHash, id, body)
    rcall("HDEL", targetHash, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":tp", id .. ":at")
    moved = moved + 1
  end
end
return moved
