--[[
  A read-only look at many queues at once, for the dashboard: each queue's settings and counters,
  where its messages are and when the next ones become visible, all by one clock. Nothing is written.
  One call covers every queue of a namespace on one server; in Redis Cluster, where each queue has
  its own slot, one call covers one queue.

  KEYS[1]          the queue registry <ns>:QUEUES, when ARGV[2] is 1 (absent when 0)
  KEYS[first + 3k] queue sorted set  <ns>:<qname>    (first = ARGV[2] + 1)
  KEYS[first+3k+1] queue hash        <ns>:<qname>:Q
  KEYS[first+3k+2] queue leases      <ns>:<qname>:leases (read only when the queue has a `concurrency`)
  ARGV[1] most hidden messages to look at one by one per queue, telling in-flight from delayed (>= 0)
  ARGV[2] 1 when KEYS[1] is the registry, else 0

  Returns { nowMs, members, queue1, queue2, ... }: the server's time (epoch ms), the registry's
  members (false without the registry), then per queue, in the order of KEYS, -1 when it does not
  exist, else { {vt, delay, maxsize, totalrecv, totalsent, created, modified, totalexpired, retention, expireto,
  paused, ratelimit, rlblock, concurrency, consumers, schedules},
  msgs, visible,
  inFlight, delayed, looked, nextDueAt, headId, headScore, dueIn1m, dueIn10m, dueIn1h, leased, liveConsumers,
  scheduleFigures }.
  visible: due now (score <= now). A hidden message is in flight when it has an `<id>:rc` field
  (received: being handled, or waiting for a retry), delayed when not; looked: how many hidden ones
  were looked at (fewer than all: the split covers the earliest only). nextDueAt: the earliest
  hidden score (-1: none hidden). headId, headScore: the oldest visible message, by its id's send
  time, among the first of each priority level (false, -1: none visible); see oldestHead. dueIn*:
  hidden messages due within 1 min, 10 min and 1 h of now. paused, ratelimit and rlblock are the
  queue's controls as stored (the reader tells by nowMs whether a pause or a block is in force).
  leased: the leases that end after now (-1 for a queue without a `concurrency`: its leases key is
  not read). liveConsumers: the Workers' heartbeat entries `consumers` lists that have not expired
  (lua/lookAndBeat-2.lua); a queue no Worker beats on costs nothing more. schedules is the index of
  the queue's schedules as stored (space-separated names; the reader counts them).
  scheduleFigures: what the schedule metrics show of each schedule the index lists (its first
  MOST_SCHEDULES), in its order: { name, count, missed, overlapped, next, paused, plan }, the
  numbers as integer texts (paused "1" or "0"; next as stored: 0 unknown, -1 ended), plan the
  stored JSON without its message when next is 0 and the schedule is not paused (the reader plans
  the next slot from it, as listSchedules' does), else false. A name without its `~sched:` field,
  or whose field is not a JSON object, is left out, as lua/listSchedules-2.lua leaves it out. A
  queue without schedules costs nothing more; one with schedules, one HMGET of their fields.
]]
local rcall = redis.call
local lookAtMost = tonumber(ARGV[1])
local first = tonumber(ARGV[2]) + 1

-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()
local now = string.format("%d", nowMs)
local reply = { now, false }
if first == 2 then
  reply[2] = rcall("SMEMBERS", KEYS[1])
end

-- PRIORITY_STEP_MS is lua/shared/message-score.lua's, which the loader puts before this script.
-- Levels 0 to 9, and room for scores planted further back: bounded work on any queue.
local MOST_BANDS = 12

local function sentUs(id)
  return tonumber(string.sub(id, 1, 10), 36) or 0
end

-- A message sent with a priority is scored back PRIORITY_STEP_MS per level, so the first visible
-- message (the lowest score) is the first of the highest level, not the oldest one. Visible
-- scores fall in bands a step wide below now, one per level; the first of each band is its
-- oldest (by send time within a level), and the oldest of those is the one returned. One
-- ZRANGEBYSCORE per band that holds a message, from the lowest up.
local function oldestHead(queueSet)
  local head = rcall("ZRANGE", queueSet, 0, 0, "WITHSCORES")
  local bestId, bestScore = head[1], tonumber(head[2])
  local score = bestScore
  for _ = 2, MOST_BANDS do
    local band = math.floor((nowMs - score) / PRIORITY_STEP_MS)
    if band <= 0 then
      break
    end
    local next = rcall("ZRANGEBYSCORE", queueSet, "(" .. string.format("%d", nowMs - band * PRIORITY_STEP_MS), now, "WITHSCORES", "LIMIT", 0, 1)
    if #next == 0 then
      break
    end
    score = tonumber(next[2])
    if sentUs(next[1]) < sentUs(bestId) then
      bestId, bestScore = next[1], score
    end
  end
  return bestId, bestScore
end

local function dueWithin(queueSet, ms)
  return rcall("ZCOUNT", queueSet, "(" .. now, string.format("%d", nowMs + ms))
end

local unpackAll = table.unpack or unpack -- table.unpack on Lua 5.4

local function liveConsumers(queueHash, index)
  local names = {}
  for id in string.gmatch(index or "", "%S+") do
    names[#names + 1] = "~w:" .. id
  end
  if #names == 0 then
    return 0
  end
  local live = 0
  for _, entry in ipairs(rcall("HMGET", queueHash, unpackAll(names))) do
    if tonumber(string.match(entry or "", "^(%d+):") or "0") > nowMs then
      live = live + 1
    end
  end
  return live
end

-- upsertSchedule-2.lua refuses a queue's 101st schedule: the figures stay bounded even for an
-- index written by hand.
local MOST_SCHEDULES = 100

-- A stored number (the schedule scripts write numbers; one written by hand may be a numeric
-- string) as an integer text; "0" for anything else, as the reader's parse reads it.
local function integerText(value)
  local number = tonumber(value)
  if not number or number ~= number or number >= 2 ^ 53 or number <= -2 ^ 53 then
    return "0"
  end
  return string.format("%d", math.floor(number))
end

local function isPaused(record)
  return record.paused == true or record.paused == 1 or record.paused == "1"
end

-- What the planner (lib/schedules/fire-plan.ts, through lib/schedules/stored-schedule.ts) reads
-- of a schedule: all of it but the message, which may be long.
local function planText(record)
  record.message = nil
  return cjson.encode(record)
end

-- scheduleNames() is lua/shared/schedule-names.lua, which the loader puts before this script.
local function scheduleFigures(queueHash, index)
  local names, fieldNames = scheduleNames(index), {}
  for i = 1, math.min(#names, MOST_SCHEDULES) do
    fieldNames[i] = "~sched:" .. names[i]
  end
  local figures = {}
  if #fieldNames == 0 then
    return figures
  end
  local texts = rcall("HMGET", queueHash, unpackAll(fieldNames))
  for i = 1, #fieldNames do
    local decoded, record = pcall(cjson.decode, texts[i] or "")
    -- An array (a table with a first element) is not a schedule either.
    if decoded and type(record) == "table" and record[1] == nil then
      local nextText, paused = integerText(record.next), isPaused(record)
      figures[#figures + 1] = {
        names[i], integerText(record.count), integerText(record.missed), integerText(record.overlapped), nextText,
        paused and "1" or "0", (not paused and nextText ~= "-1" and tonumber(nextText) <= 0) and planText(record) or false,
      }
    end
  end
  return figures
end

for i = first, #KEYS, 3 do
  local queueSet = KEYS[i]
  local queueHash = KEYS[i + 1]
  local queueLeases = KEYS[i + 2]
  local fields = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "totalrecv", "totalsent", "created", "modified", "totalexpired",
    "retention", "expireto", "paused", "ratelimit", "rlblock", "concurrency", "consumers", "schedules")
  if not fields[1] then
    reply[#reply + 1] = -1
  else
    local msgs = rcall("ZCARD", queueSet)
    local visible = rcall("ZCOUNT", queueSet, "-inf", now)
    local inFlight, delayed = 0, 0
    local hidden = rcall("ZRANGEBYSCORE", queueSet, "(" .. now, "+inf", "WITHSCORES", "LIMIT", 0, lookAtMost)
    for h = 1, #hidden, 2 do
      if rcall("HEXISTS", queueHash, hidden[h] .. ":rc") == 1 then
        inFlight = inFlight + 1
      else
        delayed = delayed + 1
      end
    end
    local nextDueAt = -1
    if msgs > visible then
      local earliest = rcall("ZRANGEBYSCORE", queueSet, "(" .. now, "+inf", "WITHSCORES", "LIMIT", 0, 1)
      nextDueAt = tonumber(earliest[2])
    end
    local headId, headScore = false, -1
    if visible > 0 then
      headId, headScore = oldestHead(queueSet)
    end
    reply[#reply + 1] = {
      fields, msgs, visible, inFlight, delayed, math.floor(#hidden / 2), nextDueAt, headId, headScore,
      dueWithin(queueSet, 60000), dueWithin(queueSet, 600000), dueWithin(queueSet, 3600000),
      fields[14] and rcall("ZCOUNT", queueLeases, "(" .. now, "+inf") or -1, liveConsumers(queueHash, fields[15]),
      scheduleFigures(queueHash, fields[16]),
    }
  end
end
return reply
