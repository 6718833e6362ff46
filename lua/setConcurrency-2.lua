--[[
  Sets a queue's concurrency limit: the `concurrency` field of its hash (lib/operations/
  queue-fields.ts), the most messages in flight at once with rsmq-next consumers, which their
  receives obey from the next call on (lua/shared/leases.lua). The messages already in flight
  count from then on only when a receive leased them. It publishes `~free:<server ms>` on the
  queue's wake channel, a control wake, and drops `maxed`: consumers an older, tighter limit held
  back look again at once.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] the limit, a whole number from 1 to 10000 (already checked)
  ARGV[2] the queue's wake channel ("": none)   ARGV[3] "1" when sharded (SPUBLISH)

  Returns { 1, wake }, or -1 when the queue does not exist (nothing written). A publish Redis
  refuses (an ACL user without the channel) is left out: the limit is set all the same.
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
local wake = "~free:" .. string.format("%d", serverNowMs())
local refused = refusedCommand("hset", "hdel")
if refused then
  return refused
end
rcall("HSET", queueHash, "concurrency", ARGV[1])
rcall("HDEL", queueHash, "maxed")
if ARGV[2] ~= "" then
  publishControl(ARGV[2], ARGV[3] == "1", wake)
end
return { 1, wake }
