--[[
  Removes a queue's rate limit and its state (`ratelimit`, `rltat`). A block (`rlblock`, from
  rateLimitQueue) stays until it ends. When there was a limit it publishes `~limit:<server ms>`
  on the queue's wake channel, a control wake: consumers the limit held back look again at once.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] the queue's wake channel ("": none)   ARGV[2] "1" when sharded (SPUBLISH)

  Returns { 1, wake } when the queue had a limit, { 0, "" } when not, -1 when the queue does not
  exist. A refused publish is left out, as in lua/setRateLimit-2.lua.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "ratelimit")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
if not settings[4] then
  rcall("HDEL", queueHash, "rltat")
  return { 0, "" }
end
-- serverNowMs() is lua/shared/now.lua, publishControl lua/shared/pause.lua: the loader puts both
-- before this script. TIME is read before the write, so a user refused it writes nothing.
local wake = "~limit:" .. string.format("%d", serverNowMs())
rcall("HDEL", queueHash, "ratelimit", "rltat")
if ARGV[1] ~= "" then
  publishControl(ARGV[1], ARGV[2] == "1", wake)
end
return { 1, wake }
