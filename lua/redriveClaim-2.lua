--[[
  The first step of a redrive when the dead-letter queue and the target cannot share a script
  (different Redis Cluster slots): claims dead-lettered messages by hiding them for a while, and
  returns their bodies and attributes for the copy. Only a message that is still there, has its body and is
  visible can be claimed, so a message deleted meanwhile is not brought back, and of two redrives
  running at once only one claims each message. A crash after this only delays them by the hold.

  KEYS[1] dead-letter sorted set  <ns>:<dlq>
  KEYS[2] dead-letter hash        <ns>:<dlq>:Q
  ARGV[1] hold in milliseconds
  ARGV[2..] message ids

  Returns id, body, attributes, id, body, attributes, ... of the messages claimed (attributes: the
  `<id>:at` JSON, "" when none).
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
  -- The attributes come in the read of the body: no command more for them.
  local message = rcall("HMGET", deadHash, id, id .. ":at")
  local body = message[1]
  if score and body and tonumber(score) <= nowMs then
    rcall("ZADD", deadSet, hiddenUntil, id)
    claimed[#claimed + 1] = id
    claimed[#claimed + 1] = body
    claimed[#claimed + 1] = message[2] or ""
  end
end
return claimed
