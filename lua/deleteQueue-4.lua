--[[
  Deletes a queue with all its messages.

  KEYS[1] queue hash          <ns>:<qname>:Q
  KEYS[2] queue sorted set    <ns>:<qname>
  KEYS[3] queue registry set  <ns>:QUEUES
  KEYS[4] leases              <ns>:<qname>:leases (lua/shared/leases.lua)
  ARGV[1] qname

  Returns 1, or -1 when neither key existed (the registry is left alone then).
]]
local rcall = redis.call
local queueHash, queueSet, registry = KEYS[1], KEYS[2], KEYS[3]

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

local refused = refusedCommand("srem")
if refused then
  return refused
end
-- The leases go with the queue, but alone they do not make one (they lapse by themselves).
rcall("DEL", KEYS[4])
if rcall("DEL", queueHash, queueSet) == 0 then
  return -1
end
rcall("SREM", registry, ARGV[1])
return 1
