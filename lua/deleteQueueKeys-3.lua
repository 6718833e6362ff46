--[[
  Deletes a queue whose registry lives in another slot (Redis Cluster): its hash and sorted set.
  The caller removes the name from <ns>:QUEUES afterwards, when this deleted something, so a
  listed name may outlive its queue after a crash, but a queue never outlives its listing.

  KEYS[1] queue hash        <ns>:{<qname>}:Q
  KEYS[2] queue sorted set  <ns>:{<qname>}
  KEYS[3] leases            <ns>:{<qname>}:leases (lua/shared/leases.lua)

  Returns 1, or -1 when neither key existed.
]]
-- The leases go with the queue, but alone they do not make one (they lapse by themselves).
redis.call("DEL", KEYS[3])
if redis.call("DEL", KEYS[1], KEYS[2]) == 0 then
  return -1
end
return 1
