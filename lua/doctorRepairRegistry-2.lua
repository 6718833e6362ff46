--[[
  Lists or unlists a queue in the registry where both share a slot (one server, or a namespace
  that is a hash tag), checked against the queue's hash in the same atomic step: a queue is listed
  only while its hash holds vt, delay or maxsize, and unlisted only while it holds none of them.

  KEYS[1] queue registry set  <ns>:QUEUES
  KEYS[2] queue hash          <ns>:<qname>:Q
  ARGV[1] "list" or "unlist"
  ARGV[2] the queue name

  Returns 1 when the registry changed, 0 when the queue is no longer out of place.
]]
local rcall = redis.call
local registry, queueHash = KEYS[1], KEYS[2]
local action, qname = ARGV[1], ARGV[2]

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.
local refused = refusedCommand("sadd", "srem")
if refused then
  return refused
end

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize")
local isQueue = settings[1] or settings[2] or settings[3]
if action == "list" and isQueue then
  return rcall("SADD", registry, qname)
end
if action == "unlist" and not isQueue then
  return rcall("SREM", registry, qname)
end
return 0
