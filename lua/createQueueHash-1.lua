--[[
  Creates a queue whose registry lives in another slot (Redis Cluster): the queue hash only. The
  caller adds the name to <ns>:QUEUES first, so a queue never exists without being listed.

  KEYS[1] queue hash  <ns>:{<qname>}:Q
  ARGV[1] vt (s)   ARGV[2] delay (s)   ARGV[3] maxsize

  Returns 1, or -2 when the queue exists (nothing is written then).
]]
local rcall = redis.call
local queueHash = KEYS[1]
local vt, delay, maxsize = ARGV[1], ARGV[2], ARGV[3]

-- Read before the first write: a refused TIME (an ACL user without it) then writes nothing.
local seconds = rcall("TIME")[1]
if rcall("HSETNX", queueHash, "vt", vt) == 0 then
  return -2
end
rcall("HSETNX", queueHash, "delay", delay)
rcall("HSETNX", queueHash, "maxsize", maxsize)
rcall("HSETNX", queueHash, "created", seconds)
rcall("HSETNX", queueHash, "modified", seconds)
return 1
