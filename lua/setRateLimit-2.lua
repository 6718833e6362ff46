--[[
  Sets a queue's rate limit: the `ratelimit` field of its hash (`<mode>;<max>/<perMs>/<burst>,...`,
  see lib/operations/queue-fields.ts), which rsmq-next's receives (mode "r") or sends (mode "p")
  obey from their next call on. Its state (`rltat`, each limit's theoretical arrival time) is
  removed: the new limits start with their full burst.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] the field's value (already checked)

  Returns 1, or -1 when the queue does not exist (nothing written).
]]
local rcall = redis.call
local queueHash = KEYS[2]

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.
local refused = refusedCommand("hdel")
if refused then
  return refused
end
rcall("HSET", queueHash, "ratelimit", ARGV[1])
rcall("HDEL", queueHash, "rltat")
return 1
