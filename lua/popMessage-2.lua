--[[
  Receives the next due message and deletes it in the same step.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] "d" for the details telemetry needs; absent otherwise

  Returns { id, body, rc, fr }, {} when nothing is due, or -1 when the queue does not exist. With
  details: { id, body, rc, fr, now, score, tp }: the server's ms, the score the message had when
  taken (when it became visible) and its trace context `<id>:tp` (false: none).

  With a `retention` (docs/retention.md) it never returns an expired message: those it meets
  first are deleted or parked, as receiveMessage-2.lua does (at most EXPIRE_PER_CALL per call),
  and the reply then ends with the same table of what was expired: { id, body, rc, fr, expired }
  or { expired } when no live message was due.
]]
local rcall = redis.call
local unpackAll = table.unpack or unpack
local queueSet, queueHash = KEYS[1], KEYS[2]
local details = ARGV[1] == "d"

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

-- Retention (docs/retention.md). The same functions, word for word, are in receiveMessage-2.lua,
-- popMessage-2.lua and sweepExpired-2.lua (test/retention/sweep.test.ts keeps them equal):
-- each script stays one standalone text whose every key the static key check can see.
-- A message is expired when the server's time minus its send time (its id's first 10 characters,
-- microseconds since the epoch in base36, as rsmq 0.12.4 and rsmq-next write them) is at least
-- the queue's `retention` in seconds. With no expireTo, expireMessages deletes the messages with
-- every field of theirs and counts them in `totalexpired`; with one it parks them (hidden for
-- PARK_MS, the two-step move's HOLD_MS) and reports them, since the target queue's keys are not
-- this script's: the client moves them (lib/retention/expired-moves.ts) and counts them then.
-- `report` is { deleted, target or "", id1, body1, rc1, ... }.
local EXPIRE_PER_CALL = 100
local PARK_MS = 60000

local function isExpired(id, nowMs, retention)
  local sentUs = tonumber(string.sub(id, 1, 10), 36)
  return sentUs ~= nil and #id == 32 and nowMs * 1000 - sentUs >= retention * 1000000
end

local function expireMessages(queueSet, queueHash, ids, expireTo, nowMs, report)
  if #ids == 0 then
    return
  end
  local refused = refusedCommand("zadd", "hmget", "zrem", "hdel", "hincrby")
  if refused then
    return refused
  end
  if expireTo then
    local parkUntil = string.format("%d", nowMs + PARK_MS)
    local hides, fields = {}, {}
    for i, id in ipairs(ids) do
      hides[2 * i - 1] = parkUntil
      hides[2 * i] = id
      fields[2 * i - 1] = id
      fields[2 * i] = id .. ":rc"
    end
    rcall("ZADD", queueSet, unpackAll(hides))
    local stored = rcall("HMGET", queueHash, unpackAll(fields))
    for i, id in ipairs(ids) do
      report[#report + 1] = id
      report[#report + 1] = stored[2 * i - 1]
      report[#report + 1] = tonumber(stored[2 * i] or "0")
    end
    return
  end
  local fields = {}
  for _, id in ipairs(ids) do
    fields[#fields + 1] = id
    fields[#fields + 1] = id .. ":rc"
    fields[#fields + 1] = id .. ":fr"
    fields[#fields + 1] = id .. ":dl"
    fields[#fields + 1] = id .. ":tp"
  end
  rcall("ZREM", queueSet, unpackAll(ids))
  rcall("HDEL", queueHash, unpackAll(fields))
  rcall("HINCRBY", queueHash, "totalexpired", #ids)
  report[1] = report[1] + #ids
  return nil
end

local function takeLiveDue(queueSet, queueHash, nowMs, count, withScores, retention, expireTo, report)
  local now = string.format("%d", nowMs)
  local ids, scores, budget, bounded = {}, {}, EXPIRE_PER_CALL, false
  local want = count
  while #ids < count do
    local page
    if withScores then
      page = rcall("ZRANGEBYSCORE", queueSet, "-inf", now, "WITHSCORES", "LIMIT", string.format("%d", #ids), string.format("%d", want))
    else
      page = rcall("ZRANGEBYSCORE", queueSet, "-inf", now, "LIMIT", string.format("%d", #ids), string.format("%d", want))
    end
    local step = withScores and 2 or 1
    local expired = {}
    for i = 1, #page, step do
      local id = page[i]
      if isExpired(id, nowMs, retention) then
        if #expired < budget then
          expired[#expired + 1] = id
        else
          bounded = true
        end
      elseif #ids < count and not bounded then
        -- Once this page's expired ones have left the due range, the live ones taken so far are
        -- the first ranks of what is due: the next page starts after them.
        ids[#ids + 1] = id
        if withScores then
          scores[#scores + 1] = page[i + 1]
        end
      end
    end
    local refused = expireMessages(queueSet, queueHash, expired, expireTo, nowMs, report)
    if refused then
      return nil, nil, refused
    end
    budget = budget - #expired
    if #expired == 0 or #page < want * step or budget <= 0 or bounded then
      break
    end
    -- More expired ones may follow: read them in one page, not one per round.
    want = count - #ids + budget
  end
  return ids, scores, nil
end

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "retention", "expireto")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
local time = rcall("TIME")
local now = string.format("%d", tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))

local ids
local retention = tonumber(settings[4] or "0") or 0
local expiry = nil
if retention > 0 then
  local live, scores, refusedExpiry
  expiry = { 0, settings[5] or "" }
  live, scores, refusedExpiry = takeLiveDue(queueSet, queueHash, tonumber(now), 1, details, retention, settings[5], expiry)
  if refusedExpiry then
    return refusedExpiry
  end
  if expiry[1] == 0 and #expiry == 2 then
    expiry = nil
  end
  ids = { live[1], scores[1] }
elseif details then
  ids = rcall("ZRANGEBYSCORE", queueSet, "-inf", now, "WITHSCORES", "LIMIT", 0, 1)
else
  ids = rcall("ZRANGEBYSCORE", queueSet, "-inf", now, "LIMIT", 0, 1)
end
if #ids == 0 then
  return { expiry }
end
local id = ids[1]
local refused = refusedCommand("hget", "zrem", "hdel")
if refused then
  return refused
end
rcall("HINCRBY", queueHash, "totalrecv", 1)
local body = rcall("HGET", queueHash, id)
local rc = rcall("HINCRBY", queueHash, id .. ":rc", 1)
local fr = now
if rc ~= 1 then
  fr = rcall("HGET", queueHash, id .. ":fr")
end
local carried = details and rcall("HGET", queueHash, id .. ":tp")
rcall("ZREM", queueSet, id)
rcall("HDEL", queueHash, id, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":tp")
if details then
  return { id, body, rc, fr, now, ids[2], carried, expiry }
end
return { id, body, rc, fr, expiry }
