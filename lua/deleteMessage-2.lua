--[[
  Deletes a message (with its dead-letter note `<id>:dl` and trace context `<id>:tp`, if any). Like rsmq 0.12.4 it does not
  check that the queue exists.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] message id
  ARGV[2] "x" when it is removed because it expired (the last step of moving an expired message
          to the queue's expireTo, docs/retention.md): then `totalexpired` counts it; absent otherwise

  Returns 1 when the message existed (in the set and the hash), else 0.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local id = ARGV[1]

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

local refused = refusedCommand("hdel") or (ARGV[2] == "x" and refusedCommand("hincrby"))
if refused then
  return refused
end
local removed = rcall("ZREM", queueSet, id)
local fields = rcall("HDEL", queueHash, id, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":tp")
if removed == 1 and fields > 0 then
  if ARGV[2] == "x" then
    rcall("HINCRBY", queueHash, "totalexpired", 1)
  end
  return 1
end
return 0
