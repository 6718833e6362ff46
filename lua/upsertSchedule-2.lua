--[[
  Writes a schedule of a queue (lib/operations/upsert-schedule.ts): its definition only, never a
  message (fireSchedule-n sends them). The schedule is the JSON of the hash field `~sched:<name>`
  (lib/operations/queue-fields.ts tells the family): the definition the client validated, and the
  state the firers keep. Writing it again with the same timing keeps that state, so every
  replica may upsert it at start; with a new timing the state's slots start again from now.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] the schedule's name (already checked: 1 to 100 of [A-Za-z0-9_.:-])
  ARGV[2] the definition, JSON: every?, cron?, tz, message, delay?, priority, catchup,
          catchupWindowMs, overlap, startAt?, endAt?, limit? (already checked)
  ARGV[3] its timing key (every, cron, tz and startAt in one text): equal keys, same slots
  ARGV[4] the queue's wake channel ("": none)   ARGV[5] "1" when sharded (SPUBLISH)
  ARGV[6] the message's length in UTF-16 code units (what maxsize counts)

  The state: v (bumped on every upsert, pause and resume; a new schedule starts at the server's
  ms, so one removed and written again never takes an old v), since (slots count from then),
  anchor (`every`: startAt, else the time of the timing's first upsert), last (the newest slot
  handled), next (the next slot, 0 unknown, -1 none), count, missed, overlapped, paused,
  createdAt, updatedAt, lastRunAt, lastSentAt, lastId, timing (ARGV[3]). Same timing: all kept;
  only a new endAt or limit sets next to 0 (an ended schedule may go on). New timing: last,
  counts, paused and the last run kept; since now, the anchor again, next 0.

  Returns { 1 created | 0 replaced, wake } and publishes the control wake `~sched:<server ms>`;
  -1 when the queue does not exist, -3 when the message is longer than the queue's maxsize, -4
  when the queue has 100 schedules already (nothing written). A refused publish is left out.
]]
local rcall = redis.call
-- queueSet: named as lua/shared/pause.lua's functions name the key (publishControl is one).
local queueSet, queueHash = KEYS[1], KEYS[2]
local name, definitionText, timing = ARGV[1], ARGV[2], ARGV[3]
local channel, sharded = ARGV[4], ARGV[5] == "1"
local length = tonumber(ARGV[6]) or 0
local field = "~sched:" .. name
local MAX_SCHEDULES = 100
-- What a client's definition may set; the rest of the JSON is the state, the script's alone.
local DEFINITION_KEYS = {
  "every", "cron", "tz", "message", "delay", "priority", "catchup", "catchupWindowMs", "overlap",
  "startAt", "endAt", "limit",
}

local fields = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "schedules", field)
if not (fields[1] and fields[2] and fields[3]) then
  return -1
end
local maxsize = tonumber(fields[3])
if maxsize ~= -1 and length > maxsize then
  return -3
end
local names = scheduleNames(fields[4])
local stored = fields[5] and cjson.decode(fields[5])
local listed = false
for _, other in ipairs(names) do
  listed = listed or other == name
end
if not stored and not listed and #names >= MAX_SCHEDULES then
  return -4
end
-- serverNowMs() is lua/shared/now.lua, refusedCommand lua/shared/refused-command.lua,
-- publishControl lua/shared/pause.lua, scheduleNames and scheduleIndexText
-- lua/shared/schedule-names.lua, writeScheduleNext lua/shared/schedule-next.lua: the loader puts
-- them before this script. TIME is read before the first write, so a user refused it writes
-- nothing.
local nowMs = serverNowMs()
local refused = refusedCommand("hset", "hdel")
if refused then
  return refused
end

local definition = cjson.decode(definitionText)
local record = {}
for _, key in ipairs(DEFINITION_KEYS) do
  record[key] = definition[key]
end
record.timing = timing
record.updatedAt = nowMs
local function newAnchor()
  if record.every then
    return record.startAt or nowMs
  end
  return nil
end

if stored then
  record.v = (tonumber(stored.v) or 0) + 1
  record.createdAt = stored.createdAt or nowMs
  record.paused = stored.paused == true
  record.count = stored.count or 0
  record.missed = stored.missed or 0
  record.overlapped = stored.overlapped or 0
  record.last, record.lastRunAt, record.lastSentAt, record.lastId = stored.last, stored.lastRunAt, stored.lastSentAt, stored.lastId
  if stored.timing == timing then
    record.anchor, record.since, record.next = stored.anchor, stored.since or nowMs, stored.next or 0
    if stored.endAt ~= record.endAt or stored.limit ~= record.limit then
      record.next = 0
    end
  else
    record.anchor, record.since, record.next = newAnchor(), nowMs, 0
  end
else
  record.v = nowMs
  record.createdAt = nowMs
  record.paused = false
  record.count, record.missed, record.overlapped = 0, 0, 0
  record.anchor, record.since, record.next = newAnchor(), nowMs, 0
end

rcall("HSET", queueHash, field, cjson.encode(record))
if not listed then
  names[#names + 1] = name
  rcall("HSET", queueHash, "schedules", scheduleIndexText(names))
end
writeScheduleNext(queueHash, names, name, record)
local wake = "~sched:" .. string.format("%d", nowMs)
if channel ~= "" then
  publishControl(channel, sharded, wake)
end
return { stored and 0 or 1, wake }
