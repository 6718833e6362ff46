--[[
  Sends a batch of messages to one queue: every entry is checked first, then the good ones are
  written, in entry order. Each id is the server's microsecond TIME in base36 (10 chars, read
  once: the whole batch shares it) followed by 22 random characters the client drew. The client
  sorts the random parts of a batch before handing them out in entry order, so the ids of one
  batch sort in entry order too: entries with the same score (the same delay and priority) are
  received in entry order, as a sorted set orders equal scores by member.

  KEYS[1]     queue sorted set  <ns>:<qname>
  KEYS[2]     queue hash        <ns>:<qname>:Q
  KEYS[3...]  one dedup key per entry that has a dedupId, in entry order (two entries with the
              same dedupId name the same key twice): <ns>:<qname>:dedup:<sha256>
  ARGV[1]     number of entries n
  ARGV[2]     the channel to notify (lua/sendMessage-2.lua's ARGV[5]), or "" for none
  ARGV[3]     how (lua/sendMessage-2.lua's ARGV[6]): "", "sharded", "wake" or "wake-sharded"; a
              wake publishes the first stored id, once for the batch
  ARGV[4]     the trace context to store as `<id>:tp` with each message, or "" for none
  ARGV[5]     the dedup window in ms, or "" for the queue's `dedupwindow` field, else 300000
  ARGV[6...]  six per entry: 22 random chars; delay in seconds or "" for the queue's; body;
              body length in UTF-16 code units (what maxsize counts; with attributes, plus their
              JSON's); priority 0 to 9; "1" when the entry has a dedup key (the next unused one
              of KEYS[3...]), else ""; or eight per entry (when any entry has attributes: the
              count of ARGV says which), with the entry's attributes JSON (stored as `<id>:at`,
              lib/operations/message-attributes.ts) and its tenant, each "" for none. A tenant's
              entry without delay is scored fairly, in entry order, as lua/sendMessage-2.lua's
              header says (fairScore, lua/shared/fair-score.lua), its tag `~fq:<tenant>` written
              in the entry's HSET

  A hard pause shifts the scores, a rate limit in pace mode spaces them (lua/shared/send-gate.lua;
  `paused`, `ratelimit` and `rltat` read in the settings' HMGET): the paced tokens are written in
  one HSET after the entries.

  Returns -1 when the queue does not exist; else { results, error, command } where results has
  one item per entry, in order: -3 (longer than maxsize, nothing stored), or { id, duplicate }
  (duplicate 1: an entry with the same dedupId was sent within the window, whose id this is, and
  nothing was stored). error and command are absent unless the realtime notification (ZCARD,
  then PUBLISH or SPUBLISH) or the wake was refused; the messages are stored all the same.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local count, channel = tonumber(ARGV[1]), ARGV[2]
local wake, sharded = notifyMode(ARGV[3])
local carried, windowArg = ARGV[4], ARGV[5]
local FIRST = 6
-- Eight per entry when the batch carries attributes, else six: a plain batch passes no more.
local FIELDS = #ARGV == FIRST - 1 + count * 8 and 8 or 6

-- refusedCommand(...) is lua/shared/refused-command.lua, messageScore(...) is
-- lua/shared/message-score.lua, fairScore(...) lua/shared/fair-score.lua, and newMessageId, notifyMode, notifySent, wakeWanted and notifyWake are
-- lua/shared/store-message.lua, which the loader puts before this script. The writes of each
-- entry are not storeMessage's: a batch checks the ACL once and counts totalsent in one HINCRBY.

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "dedupwindow", "paused", "ratelimit", "rltat")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
local maxsize = tonumber(settings[3])
local queueDelay = tonumber(settings[2])
local window = tonumber(windowArg) or tonumber(settings[4] or "") or 300000

-- Checks first: an entry longer than maxsize is refused on its own, before anything is written.
-- The shortest delay of the others says when the first of them is due (for the wake).
local results, tooLong, soonest = {}, {}, nil
for i = 1, count do
  local base = FIRST + (i - 1) * FIELDS
  local length = tonumber(ARGV[base + 3])
  if maxsize ~= -1 and length > maxsize then
    tooLong[i] = true
  else
    local delay = ARGV[base + 1] == "" and queueDelay or tonumber(ARGV[base + 1])
    if not soonest or delay < soonest then
      soonest = delay
    end
  end
end

-- The id's time part (the server's TIME, read once: the whole batch shares it), and now in ms.
local stampText, nowMs, nowUs = newMessageId("")
-- A hard pause or a paced rate limit (sendGate, lua/shared/send-gate.lua) changes the scores:
-- each stored entry takes the next slot, in entry order.
local send = (settings[5] or settings[6]) and sendGate(settings[5], settings[6], settings[7])
-- Asked before anything is stored: it would be what it finds.
local waking = wake and soonest and wakeWanted(queueSet, nowMs, nowMs + soonest * 1000)

-- ZADD too: an entry's dedup SET is a write before it. SET and GET only when an entry has a
-- dedupId, so a producer without them can still send plain batches.
local refused = refusedCommand("zadd", "hset", "hincrby")
if not refused and #KEYS > 2 then
  refused = refusedCommand("set", "get")
end
-- A tenant's entry reads its tag and the head (fairScore) between other entries' writes.
if not refused and FIELDS == 8 then
  refused = refusedCommand("zrangebyscore", "hget")
end
if refused then
  return refused
end

local stored, nextDedupKey, firstStored = 0, 3, nil
-- Each tenant's tag as its last entry left it: read once per batch.
local lasts = {}
for i = 1, count do
  local base = FIRST + (i - 1) * FIELDS
  local dedupKey
  if ARGV[base + 5] == "1" then
    dedupKey = KEYS[nextDedupKey]
    nextDedupKey = nextDedupKey + 1
  end
  if tooLong[i] then
    results[i] = -3
  else
    local id = stampText .. ARGV[base]
    local duplicateOf
    -- The key holds the first id for the window: a second entry (of this batch or any later
    -- send) with the same dedupId finds it and stores nothing.
    if dedupKey and not rcall("SET", dedupKey, id, "NX", "PX", window) then
      duplicateOf = rcall("GET", dedupKey)
    end
    if duplicateOf then
      results[i] = { duplicateOf, 1 }
    else
      local delay = queueDelay
      if ARGV[base + 1] ~= "" then
        delay = tonumber(ARGV[base + 1])
      end
      local score
      local attributes = FIELDS == 8 and ARGV[base + 6] or ""
      local tenant = FIELDS == 8 and ARGV[base + 7] or ""
      local priority = tonumber(ARGV[base + 4])
      if tenant ~= "" and delay == 0 and not (send and send.paced) then
        -- A tenant's entry: scored fairly (fairScore), its tag kept for its next entry.
        local fairTag
        score, fairTag, lasts[tenant] = fairScore(queueSet, queueHash, tenant, nowMs, priority, send and send.shift or 0, lasts[tenant])
        rcall("ZADD", queueSet, score, id)
        if carried == "" then
          rcall("HSET", queueHash, id, ARGV[base + 2], id .. ":at", attributes, "~fq:" .. tenant, fairTag)
        else
          rcall("HSET", queueHash, id, ARGV[base + 2], id .. ":at", attributes, "~fq:" .. tenant, fairTag, id .. ":tp", carried)
        end
      else
        if send then
          score = send.score(nowMs, nowUs, delay, priority)
        else
          score = messageScore(nowMs, delay, priority)
        end
        rcall("ZADD", queueSet, score, id)
        if attributes ~= "" then
          if carried == "" then
            rcall("HSET", queueHash, id, ARGV[base + 2], id .. ":at", attributes)
          else
            rcall("HSET", queueHash, id, ARGV[base + 2], id .. ":at", attributes, id .. ":tp", carried)
          end
        elseif carried == "" then
          rcall("HSET", queueHash, id, ARGV[base + 2])
        else
          rcall("HSET", queueHash, id, ARGV[base + 2], id .. ":tp", carried)
        end
      end
      stored = stored + 1
      firstStored = firstStored or id
      results[i] = { id, 0 }
    end
  end
end
if stored > 0 then
  rcall("HINCRBY", queueHash, "totalsent", string.format("%d", stored))
  if send and send.paced then
    rcall("HSET", queueHash, "rltat", send.rltat())
  end
end
if channel == "" or stored == 0 or (wake and not waking) then
  return { results }
end
-- One notification for the batch, pcall'd: the messages are stored, so a refused notification
-- (an ACL user without the channel) must not fail the send; it is reported beside the results.
local notified
if wake then
  notified = notifyWake(channel, sharded, firstStored)
else
  notified = notifySent(queueSet, channel, sharded, false)
end
if type(notified) == "table" then
  return { results, notified[2], notified[3] }
end
return { results }
