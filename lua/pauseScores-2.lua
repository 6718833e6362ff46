--[[
  One chunk of a hard pause's score move (lua/shared/pause.lua): at most 1000 members, so Redis is
  never blocked long and sends and deletes run in between. Shifting goes on only while the queue
  is hard-paused (kind "h"), restoring only while a resume restores (kind "r"): a resume during
  a shift, or a pause during a restore, stops the other's loop, and whoever runs next finishes
  the job. The restore's last chunk removes the `paused` field and publishes a control wake, so
  consumers that saw shifted scores look again at once.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] "shift" or "restore"
  ARGV[2] the queue's wake channel ("": none)   ARGV[3] "1" when sharded (SPUBLISH)

  Returns { moved, done }: how many scores moved, and 1 when none is left (for a restore: the
  field is gone, and the wake text is the third element), 0 when more may be; or -6 when the
  queue is no longer in that state (another call took over: stop).
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local shift = ARGV[1] == "shift"

-- pauseKind, moveScores and publishControl are lua/shared/pause.lua, refusedCommand
-- lua/shared/refused-command.lua: the loader puts both before this script.
local kind = pauseKind(rcall("HGET", queueHash, "paused"))
if kind ~= (shift and "h" or "r") then
  return -6
end
if shift then
  local moved = moveScores(queueSet, true)
  return { moved, moved == PAUSE_CHUNK and 0 or 1 }
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script: TIME is read
-- before the first write, and HDEL checked, so a user refused either writes nothing.
local wake = "~resume:" .. string.format("%d", serverNowMs())
local refused = refusedCommand("hdel")
if refused then
  return refused
end
local moved = moveScores(queueSet, false)
if moved == PAUSE_CHUNK then
  return { moved, 0 }
end
rcall("HDEL", queueHash, "paused")
if ARGV[2] ~= "" then
  publishControl(ARGV[2], ARGV[3] == "1", wake)
end
return { moved, 1, wake }
