--[[
  Deletes a message (with its dead-letter note `<id>:dl`, trace context `<id>:tp` and attributes
  `<id>:at`, if any, and its concurrency lease). Like rsmq 0.12.4 it does not check that the queue exists.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  KEYS[3] leases            <ns>:<qname>:leases (lua/shared/leases.lua)
  ARGV[1] message id
  ARGV[2] "1" when sharded (a `~free:` goes by SPUBLISH, lua/shared/free-slot.lua); "" or absent
  ARGV[3] the receipt: delete only while `<id>:rc` is this; "" or absent for none
  ARGV[4] "x" when it is removed because it expired (the last step of moving an expired message
          to the queue's expireTo, docs/retention.md): then `totalexpired` counts it; absent otherwise

  Returns 1 when the message existed (in the set and the hash), else 0 (also for a receipt that is
  not the message's: nothing written then). When it freed a lease of a queue a receive was held
  at (`maxed`): { 1 or 0, `~free:<server ms>` }, the wake it published, and when Redis refused
  that publish its error and command after it (lua/shared/free-slot.lua).
]]
local rcall = redis.call
local queueSet, queueHash, leasesKey = KEYS[1], KEYS[2], KEYS[3]
local rc = ARGV[3]
if rc == "" then
  rc = nil
end
local expired = ARGV[4] == "x"

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
  -- announceFree is lua/shared/free-slot.lua: `~free:` only when a receive was held at the limit.
  local wake, refusal = announceFree(queueHash, leasesKey, ARGV[2] == "1")
  if refusal then
    return { deleted, wake, refusal[1], refusal[2] }
  elseif wake then
    return { deleted, wake }
  end
end
return deleted
