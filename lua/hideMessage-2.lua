--[[
  Hides a message for a number of milliseconds from now: the worker's retry backoff and its
  visibility extension for long handlers. Unlike changeMessageVisibility it has millisecond
  precision and no queue check (the worker holds the message it hides). While the queue is
  hard-paused the new score carries the offset (lua/shared/pause.lua), so the resume restores it.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] message id   ARGV[2] milliseconds from now

  Returns 1 when the message exists, else 0.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local id, ms = ARGV[1], tonumber(ARGV[2])

if not rcall("ZSCORE", queueSet, id) then
  return 0
end
-- One HGET: this runs on every retry and visibility extension.
local paused = rcall("HGET", queueHash, "paused")
-- serverNowMs() is lua/shared/now.lua, pauseOffset lua/shared/pause.lua: the loader puts both before this script.
local nowMs = serverNowMs()
rcall("ZADD", queueSet, string.format("%d", math.floor(nowMs + ms + pauseOffset(paused))), id)
return 1
