--[[
  Removes a queue's concurrency limit: its `concurrency` and `maxed` fields and the leases key
  (lua/shared/leases.lua). When there was a limit it publishes `~free:<server ms>` on the queue's
  wake channel, a control wake: consumers the limit held back look again at once.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  KEYS[3] leases            <ns>:<qname>:leases
  ARGV[1] the queue's wake channel ("": none)   ARGV[2] "1" when sharded (SPUBLISH)

  Returns { 1, wake } when the queue had a limit, { 0, "" } when not, -1 when the queue does not
  exist. A refused publish is left out, as in lua/setConcurrency-2.lua.
]]
local rcall = redis.call
local queueSet, queueHash, leasesKey = KEYS[1], KEYS[2], KEYS[3]

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "concurrency")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
-- refusedCommand is lua/shared/refused-command.lua: checked before the first write.
local refused = refusedCommand("hdel", "del")
if refused then
  return refused
end
if not settings[4] then
  rcall("HDEL", queueHash, "maxed")
  rcall("DEL", leasesKey)
  return { 0, "" }
end
-- serverNowMs() is lua/shared/now.lua, publishControl lua/shared/pause.lua: the loader puts both
-- before this script.
local wake = "~free:" .. string.format("%d", serverNowMs())
rcall("HDEL", queueHash, "concurrency", "maxed")
rcall("DEL", leasesKey)
if ARGV[1] ~= "" then
  publishControl(ARGV[1], ARGV[2] == "1", wake)
end
return { 1, wake }
