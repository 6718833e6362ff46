--[[
  Resumes a paused queue. A soft pause ends at once (HDEL). A hard pause (or a restore a resume
  began) becomes kind "r": the queue is no longer paused, new scores are written unshifted, and
  this script restores the first chunk of shifted scores (the earliest first), the caller the
  rest with lua/pauseScores-2.lua. Either way it publishes `~resume:<server ms>` on the queue's
  wake channel, a control wake that sleeping Workers and waiting receives act on at once.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] the queue's wake channel ("": none)   ARGV[2] "1" when sharded (SPUBLISH)

  Returns { state, wake, publishError, publishCommand }: state 0 when the queue was not paused
  (an expired `until` included: its field is removed, nothing published), 1 when it is resumed,
  2 when the caller must go on restoring; wake the published text ("" for 0); the last two only
  when Redis refused the publish. -1 when the queue does not exist (nothing written).
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "paused")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
local current = settings[4]
if not current then
  return { 0, "" }
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()
local now = string.format("%d", nowMs)
-- pauseKind, moveScores and publishControl are lua/shared/pause.lua, refusedCommand
-- lua/shared/refused-command.lua: the loader puts both before this script.
local kind = pauseKind(current)
local state = 1
if kind == "h" or kind == "r" then
  local refused = refusedCommand("zadd", "hset", "hdel")
  if refused then
    return refused
  end
  if moveScores(queueSet, false) == PAUSE_CHUNK then
    rcall("HSET", queueHash, "paused", now .. "::r")
    state = 2
  else
    rcall("HDEL", queueHash, "paused")
  end
else
  rcall("HDEL", queueHash, "paused")
  local untilMs = string.match(current, "^%d*:(%d*):")
  if untilMs and untilMs ~= "" and tonumber(untilMs) <= nowMs then
    return { 0, "" }
  end
end
local wake = "~resume:" .. now
if ARGV[1] ~= "" then
  local refusedPublish = publishControl(ARGV[1], ARGV[2] == "1", wake)
  if refusedPublish then
    return { state, wake, refusedPublish[1], refusedPublish[2] }
  end
end
return { state, wake }
