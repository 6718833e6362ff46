--[[
  Pauses a queue: rsmq-next's receives (single, batch, waiting, pop, the Worker's) take nothing
  until it is resumed, or until `until` passes on the server's clock. Soft by default: a flag in
  the queue hash that rsmq 0.12.4 consumers do not read. Hard: every score is moved far into the
  future (lua/shared/pause.lua), so rsmq 0.12.4 consumers see nothing due either; this script
  only sets the field, first, so every script that scores a message from now on adds the offset,
  and the caller then moves the scores in chunks with lua/pauseScores-2.lua.

  Pausing a paused queue updates it and keeps its `since`. A hard pause stays hard until a resume:
  a soft pause of a hard-paused queue leaves it hard (its scores stay shifted), and a pause of a
  queue whose hard resume is still restoring makes it hard again (the caller shifts back what was
  restored).

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] until, epoch ms ("": until a resume; already checked to be after the client's now)
  ARGV[2] "h" for a hard pause, "s" for a soft one

  Returns the kind now in force: "s", or "h" (the caller then runs pauseScores until it is done);
  -1 when the queue does not exist; -5 when `until` is given and the queue is hard-paused or
  restoring (a hard pause ends only by a resume). Nothing is written on a negative reply.
]]
local rcall = redis.call
local queueHash = KEYS[2]
local untilMs, wanted = ARGV[1], ARGV[2]

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "paused")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()
local since = string.format("%d", nowMs)
local kind = wanted
local current = settings[4]
if current then
  local currentSince, currentUntil, currentKind = string.match(current, "^(%d*):(%d*):(%a)$")
  if currentKind == "h" or currentKind == "r" then
    if untilMs ~= "" then
      return -5
    end
    kind = "h"
    if currentKind == "h" then
      since = currentSince
    end
  elseif currentKind == "s" and (currentUntil == "" or tonumber(currentUntil) > nowMs) then
    since = currentSince
  end
end
rcall("HSET", queueHash, "paused", since .. ":" .. untilMs .. ":" .. kind)
return kind
