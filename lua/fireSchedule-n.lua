--[[
  Fires slots of a schedule (lib/operations/fire-schedule.ts; the firer planned them with
  lib/schedules/fire-plan.ts from what listSchedules-2 read). Exactly once per slot without a
  leader: the script compares the plan with the stored state on the server's clock and stores
  the messages only when the plan is still the state's next step (the same v, not paused, a
  handled slot newer than the stored last, no slot later than now); each slot also claims its
  dedup key (`SET NX PX`), a second guard that outlives a removal of the schedule.

  KEYS[1]     queue sorted set  <ns>:<qname>
  KEYS[2]     queue hash        <ns>:<qname>:Q
  KEYS[3...]  one dedup key per slot, in slot order: the dedup key of the dedupId
              `~sched:<name>:<slotMs>` (<ns>:<qname>:dedup:<sha256>)
  ARGV[1] the schedule's name   ARGV[2] its v the plan was made from
  ARGV[3] handledThrough: the newest slot the plan handles (fired or counted missed), or "" for
          none (then no slot: the call only settles `next`)
  ARGV[4] next: the next slot after the plan (ms), -1 when none is left
  ARGV[5] missed: how many slots the plan counts missed   ARGV[6] the dedup claims' TTL, ms
  ARGV[7] how to notify, as lua/sendMessage-2.lua's ARGV[4] ("", "sharded", "wake",
          "wake-sharded")   ARGV[8] the channel to notify, "" for none
  ARGV[9...] two per slot, ascending: the slot (ms), 22 random chars of its message's id

  Each message is an ordinary one (body, score as a send's with the schedule's delay and
  priority, totalsent), plus `<id>:at` = {"schedule":"<name>","slot":<ms>}, a field rsmq 0.12.4
  never reads. A hard pause and a paced rate limit apply as to a send (lua/shared/send-gate.lua).

  Returns, checked in this order: -1 when the queue does not exist; 0 when it has no such
  schedule; { "stale", next } when v differs or it is paused; { "done", next } when the stored
  last is at or after handledThrough; { "early", next } when a slot (or handledThrough) is later
  than the server's now; then, writing: { "skipped", next } with `overlap: "skip"` while the last
  message is still in the queue (the slots counted in overlapped); { "fired", next, id1, ... }
  (the ids of the messages stored: a slot whose claim was taken, or past `limit`, stores none);
  with no slot and handledThrough "", { "done", next } after settling next. `next` is the state's
  after the call.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local name, planV, handledArg = ARGV[1], ARGV[2], ARGV[3]
local planNext, missedArg, ttl = tonumber(ARGV[4]), tonumber(ARGV[5]) or 0, ARGV[6]
local wake, sharded = notifyMode(ARGV[7])
local channel = ARGV[8]
local FIRST_SLOT = 9
local slotCount = math.floor((#ARGV - FIRST_SLOT + 1) / 2)
local field = "~sched:" .. name

-- newMessageId, notifyMode, wakeWanted, notifyWake and notifySent are lua/shared/store-message.lua
-- (serverNowMs with it), messageScore lua/shared/message-score.lua, sendGate
-- lua/shared/send-gate.lua, refusedCommand lua/shared/refused-command.lua, scheduleNames
-- lua/shared/schedule-names.lua, writeScheduleNext lua/shared/schedule-next.lua: the loader puts them before this script.

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "schedules", "paused", "ratelimit", "rltat", field)
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
if not settings[8] then
  return 0
end
local record = cjson.decode(settings[8])
local function whole(value)
  return math.floor(tonumber(value) or 0)
end
local storedNext = whole(record.next)
if string.format("%d", whole(record.v)) ~= planV or record.paused == true then
  return { "stale", storedNext }
end
local handled = handledArg ~= "" and tonumber(handledArg) or nil
if handled and record.last and handled <= tonumber(record.last) then
  return { "done", storedNext }
end
-- TIME once: the ids' time part (as sendMessages-n's batch) and now.
local stamp, nowMs, nowUs = newMessageId("")
if handled and handled > nowMs then
  return { "early", storedNext }
end
for i = 1, slotCount do
  if tonumber(ARGV[FIRST_SLOT + (i - 1) * 2]) > nowMs then
    return { "early", storedNext }
  end
end

local refused = refusedCommand("set", "zadd", "hset", "hdel", "hincrby")
if refused then
  return refused
end
local names = scheduleNames(settings[4])
local function save(next)
  record.next = next
  rcall("HSET", queueHash, field, cjson.encode(record))
  writeScheduleNext(queueHash, names, name, record)
end

if not handled then
  -- Settling only: the plan found nothing due, and a `next` other than the stored one.
  if slotCount == 0 and planNext ~= storedNext then
    save(planNext)
  end
  return { "done", whole(record.next) }
end

record.missed = whole(record.missed) + missedArg
record.last = handled
if slotCount > 0 and record.overlap == "skip" and record.lastId and rcall("ZSCORE", queueSet, record.lastId) then
  record.overlapped = whole(record.overlapped) + slotCount
  save(planNext)
  return { "skipped", planNext }
end

local queueDelay = tonumber(settings[2])
local delay = record.delay and tonumber(record.delay) or queueDelay
local priority = record.priority and tonumber(record.priority) or 0
local limit = record.limit and tonumber(record.limit)
local count = whole(record.count)
-- A hard pause or a paced rate limit (sendGate, lua/shared/send-gate.lua) changes the scores.
local send = (settings[5] or settings[6]) and sendGate(settings[5], settings[6], settings[7])
-- Asked before anything is stored: it would be what it finds.
local waking = wake and channel ~= "" and slotCount > 0 and wakeWanted(queueSet, nowMs, nowMs + delay * 1000)

local reply = { "fired", 0 }
for i = 1, slotCount do
  if limit and count >= limit then
    break
  end
  local slotText, randomPart = ARGV[FIRST_SLOT + (i - 1) * 2], ARGV[FIRST_SLOT + (i - 1) * 2 + 1]
  local id, claimKey = stamp .. randomPart, KEYS[i + 2]
  -- The claim holds the id: a slot claimed before (by a fire of a removed schedule of the same
  -- name) stores nothing.
  if rcall("SET", claimKey, id, "NX", "PX", ttl) then
    local score
    if send then
      score = send.score(nowMs, nowUs, delay, priority)
    else
      score = messageScore(nowMs, delay, priority)
    end
    rcall("ZADD", queueSet, score, id)
    rcall("HSET", queueHash, id, record.message, id .. ":at", '{"schedule":"' .. name .. '","slot":' .. slotText .. "}")
    count = count + 1
    record.lastRunAt = tonumber(slotText)
    record.lastId = id
    reply[#reply + 1] = id
  end
end
local fired = #reply - 2
if fired > 0 then
  rcall("HINCRBY", queueHash, "totalsent", string.format("%d", fired))
  if send and send.paced then
    rcall("HSET", queueHash, "rltat", send.rltat())
  end
  record.lastSentAt = nowMs
end
record.count = count
local next = planNext
if limit and count >= limit then
  next = -1
end
save(next)
reply[2] = next
-- As a send notifies; a refused notification is left out: the messages are stored.
if fired > 0 and channel ~= "" then
  if wake then
    if waking then
      notifyWake(channel, sharded, reply[3])
    end
  else
    notifySent(queueSet, channel, sharded, reply[3])
  end
end
return reply
