--[[
  Pauses or resumes a schedule of a queue (lib/operations/pause-schedule.ts). A paused schedule
  fires nothing; a resumed one counts its slots from now (since), so the slots of the pause are
  neither fired nor counted missed, and its next slot is unknown (0) until a firer settles it.
  Both bump v: a fire planned before the change finds it stale.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] the schedule's name   ARGV[2] "1" to pause, "" to resume
  ARGV[3] the queue's wake channel ("": none)   ARGV[4] "1" when sharded (SPUBLISH)

  Returns { 1, wake } when it changed (publishing the control wake `~sched:<server ms>`), { 0, "" }
  when it was already so (nothing written); -1 when the queue does not exist, -5 when it has no
  such schedule. A refused publish is left out.
]]
local rcall = redis.call
-- queueSet: named as lua/shared/pause.lua's functions name the key (publishControl is one).
local queueSet, queueHash = KEYS[1], KEYS[2]
local name, pausing = ARGV[1], ARGV[2] == "1"
local channel, sharded = ARGV[3], ARGV[4] == "1"
local field = "~sched:" .. name

local fields = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "schedules", field)
if not (fields[1] and fields[2] and fields[3]) then
  return -1
end
if not fields[5] then
  return -5
end
local record = cjson.decode(fields[5])
if (record.paused == true) == pausing then
  return { 0, "" }
end
-- serverNowMs() is lua/shared/now.lua, refusedCommand lua/shared/refused-command.lua,
-- publishControl lua/shared/pause.lua, scheduleNames lua/shared/schedule-names.lua,
-- writeScheduleNext lua/shared/schedule-next.lua: the loader puts them before this script.
local nowMs = serverNowMs()
local refused = refusedCommand("hset", "hdel")
if refused then
  return refused
end
record.paused = pausing
record.v = (tonumber(record.v) or 0) + 1
record.updatedAt = nowMs
if not pausing then
  record.since = nowMs
  record.next = 0
end
rcall("HSET", queueHash, field, cjson.encode(record))
writeScheduleNext(queueHash, scheduleNames(fields[4]), name, record)
local wake = "~sched:" .. string.format("%d", nowMs)
if channel ~= "" then
  publishControl(channel, sharded, wake)
end
return { 1, wake }
