--[[
  Creates a queue, exactly as rsmq 0.12.4 lays it out.

  KEYS[1] queue hash          <ns>:<qname>:Q
  KEYS[2] queue registry set  <ns>:QUEUES
  ARGV[1] qname   ARGV[2] vt (s)   ARGV[3] delay (s)   ARGV[4] maxsize

  Returns 1, or -2 when the queue exists (nothing is written then).
]]
local rcall = redis.call
local queueHash, registry = KEYS[1], KEYS[2]
local qname, vt, delay, maxsize = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

-- Redis checks each command of a script only when it is called: one refused halfway would leave
-- the writes before it. So, on Redis 7+, what may run once this script writes is checked first.
local function aclRefusal(...)
  if not redis.acl_check_cmd then
    return nil
  end
  local checks = { ... }
  for i = 1, #checks, 2 do
    if not redis.acl_check_cmd(checks[i], checks[i + 1]) then
      local what = "access one of the keys used as arguments"
      if not redis.acl_check_cmd(checks[i]) then
        what = "run the '" .. string.lower(checks[i]) .. "' command"
      end
      return redis.error_reply("NOPERM this user has no permissions to " .. what)
    end
  end
end

-- Read before the first write: a refused TIME (an ACL user without it) then writes nothing.
local seconds = rcall("TIME")[1]
local refused = aclRefusal("HSETNX", queueHash, "SADD", registry)
if refused then
  return refused
end
if rcall("HSETNX", queueHash, "vt", vt) == 0 then
  return -2
end
rcall("HSETNX", queueHash, "delay", delay)
rcall("HSETNX", queueHash, "maxsize", maxsize)
rcall("HSETNX", queueHash, "created", seconds)
rcall("HSETNX", queueHash, "modified", seconds)
rcall("SADD", registry, qname)
return 1
