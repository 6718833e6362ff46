--[[
  Removes a schedule of a queue (lib/operations/remove-schedule.ts): its `~sched:<name>` field
  and its name in `schedules`, and writes `schednext` again. The dedup claims of the slots it
  fired stay until their TTL: a fire planned before the removal, run against a schedule of the
  same name written since, cannot send one of those slots again.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] the schedule's name
  ARGV[2] the queue's wake channel ("": none)   ARGV[3] "1" when sharded (SPUBLISH)

  Returns { 1, wake } when it removed one (publishing the control wake `~sched:<server ms>`),
  { 0, "" } when the queue has no such schedule; -1 when the queue does not exist. A refused
  publish is left out.
]]
local rcall = redis.call
-- queueSet: named as lua/shared/pause.lua's functions name the key (publishControl is one).
local queueSet, queueHash = KEYS[1], KEYS[2]
local name = ARGV[1]
local channel, sharded = ARGV[2], ARGV[3] == "1"
local field = "~sched:" .. name

local fields = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "schedules", field)
if not (fields[1] and fields[2] and fields[3]) then
  return -1
end
local names, others = scheduleNames(fields[4]), {}
for _, other in ipairs(names) do
  if other ~= name then
    others[#others + 1] = other
  end
end
if not fields[5] and #others == #names then
  return { 0, "" }
end
-- serverNowMs() is lua/shared/now.lua, refusedCommand lua/shared/refused-command.lua,
-- publishControl lua/shared/pause.lua, scheduleNames and scheduleIndexText
-- lua/shared/schedule-names.lua, writeScheduleNext lua/shared/schedule-next.lua: the loader puts them before this script.
local nowMs = serverNowMs()
local refused = refusedCommand("hset", "hdel")
if refused then
  return refused
end
rcall("HDEL", queueHash, field)
if #others > 0 then
  rcall("HSET", queueHash, "schedules", scheduleIndexText(others))
else
  rcall("HDEL", queueHash, "schedules")
end
writeScheduleNext(queueHash, others, name, nil)
if not fields[5] then
  -- Only a name the index listed without its field (written by hand): cleaned, nothing removed.
  return { 0, "" }
end
local wake = "~sched:" .. string.format("%d", nowMs)
if channel ~= "" then
  publishControl(channel, sharded, wake)
end
return { 1, wake }
