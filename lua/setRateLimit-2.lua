--[[
  Sets a queue's rate limit: the `ratelimit` field of its hash (`<mode>;<max>/<perMs>/<burst>,...`,
  see lib/operations/queue-fields.ts), which rsmq-next's receives (mode "r") or sends (mode "p")
  obey from their next call on. Its state (`rltat`, each limit's theoretical arrival time) is
  removed: the new limits start with their full burst. It publishes `~limit:<server ms>` on the
  queue's wake channel, a control wake: consumers that an older, tighter limit holds back look
  again at once instead of sleeping out their retry time.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] the field's value (already checked)
  ARGV[2] the queue's wake channel ("": none)   ARGV[3] "1" when sharded (SPUBLISH)

  Returns { 1, wake }, or -1 when the queue does not exist (nothing written). A publish Redis
  refuses (an ACL user without the channel) is left out: the limit is set all the same, and
  consumers find it at their next look.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, publishControl lua/shared/pause.lua, refusedCommand
-- lua/shared/refused-command.lua: the loader puts them before this script. TIME is read before
-- the first write, so a user refused it writes nothing.
local wake = "~limit:" .. string.format("%d", serverNowMs())
local refused = refusedCommand("hdel")
if refused then
  return refused
end
rcall("HSET", queueHash, "ratelimit", ARGV[1])
rcall("HDEL", queueHash, "rltat")
if ARGV[2] ~= "" then
  publishControl(ARGV[2], ARGV[3] == "1", wake)
end
return { 1, wake }
