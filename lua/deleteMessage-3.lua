--[[
  Deletes a message (with its dead-letter note `<id>:dl` and trace context `<id>:tp`, if any, and
  its concurrency lease). Like rsmq 0.12.4 it does not check that the queue exists.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  KEYS[3] leases            <ns>:<qname>:leases (lua/shared/leases.lua)
  ARGV[1] message id
  ARGV[2] the queue's wake channel ("": none)   ARGV[3] "1" when sharded (SPUBLISH)
  ARGV[4] the receipt: delete only while `<id>:rc` is this; "" or absent for none
  ARGV[5] "x" when it is removed because it expired (the last step of moving an expired message
          to the queue's expireTo, docs/retention.md): then `totalexpired` counts it; absent otherwise

  Returns 1 when the message existed (in the set and the hash), else 0 (also for a receipt that is
  not the message's: nothing written then). When it freed a lease of a queue a receive was held
  at (`maxed`): { 1 or 0, `~free:<server ms>` }, the wake it published.
]]
local rcall = redis.call
local queueSet, queueHash, leasesKey = KEYS[1], KEYS[2], KEYS[3]
local rc = ARGV[4]
if rc == "" then
  rc = nil
end
local expired = ARGV[5] == "x"

-- refusedCommand(...) is lua/shared/refused-command.lua, and deleteOne (which checks HDEL itself)
-- lua/shared/delete-one.lua: the loader puts both before this script. HDEL is named here too, first,
-- so a user refused both is told of HDEL, as before.
if expired then
  local refused = refusedCommand("hdel", "hincrby")
  if refused then
    return refused
  end
end
local deleted, freed = deleteOne(queueSet, queueHash, leasesKey, ARGV[1], rc)
if deleted == 1 and expired then
  rcall("HINCRBY", queueHash, "totalexpired", 1)
end
if freed == 1 then
  -- announceFree is lua/shared/leases.lua: `~free:` only when a receive was held at the limit.
  local wake = announceFree(queueHash, ARGV[2], ARGV[3] == "1")
  if wake then
    return { deleted, wake }
  end
end
return deleted
