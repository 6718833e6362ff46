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
local expired = ARGV[2] == "x"

-- refusedCommand(...) is lua/shared/refused-command.lua, and deleteOne (which checks HDEL itself)
-- lua/shared/delete-one.lua: the loader puts both before this script. HDEL is named here too, first,
-- so a user refused both is told of HDEL, as before.
if expired then
  local refused = refusedCommand("hdel", "hincrby")
  if refused then
    return refused
  end
end
local deleted = deleteOne(queueSet, queueHash, ARGV[1])
if deleted == 1 and expired then
  rcall("HINCRBY", queueHash, "totalexpired", 1)
end
return deleted
