--[[
  The first step of a redrive when the dead-letter queue and the target cannot share a script
  (different Redis Cluster slots): claims dead-lettered messages by hiding them for a while, and
  returns their bodies for the copy. Only a message that is still there, has its body and is
  visible can be claimed, so a message deleted meanwhile is not brought back, and of two redrives
  running at once only one claims each message. A crash after this only delays them by the hold.

  KEYS[1] dead-letter sorted set  <ns>:<dlq>
  KEYS[2] dead-letter hash        <ns>:<dlq>:Q
  ARGV[1] hold in milliseconds
  ARGV[2..] message ids

  Returns id, body, id, body, ... of the messages claimed.
]]
local rcall = redis.call
local deadSet, deadHash = KEYS[1], KEYS[2]
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()
local hiddenUntil = string.format("%d", nowMs + tonumber(ARGV[1]))
local claimed = {}
for i = 2, #ARGV do
  local id = ARGV[i]
  local score = rcall("ZSCORE", deadSet, id)
  local body = rcall("HGET", deadHash, id)
  if score and body and tonumber(score) <= nowMs then
    rcall("ZADD", deadSet, hiddenUntil, id)
    claimed[#claimed + 1] = id
    claimed[#claimed + 1] = body
  end
end
return claimed
