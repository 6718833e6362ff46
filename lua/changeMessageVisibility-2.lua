--[[
  Makes a message visible vt seconds from now (plus the hard pause's offset while the queue is
  hard-paused, lua/shared/pause.lua, so the resume restores it).

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] message id   ARGV[2] vt in seconds

  Returns 1 when the message exists, 0 when it does not, -1 when the queue does not exist.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local id, vt = ARGV[1], tonumber(ARGV[2])

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "paused")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
if not rcall("ZSCORE", queueSet, id) then
  return 0
end
-- serverNowMs() is lua/shared/now.lua, pauseOffset lua/shared/pause.lua: the loader puts both before this script.
local nowMs = serverNowMs()
rcall("ZADD", queueSet, string.format("%d", math.floor(nowMs + vt * 1000 + pauseOffset(settings[4]))), id)
return 1
