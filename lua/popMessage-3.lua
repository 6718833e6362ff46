--[[
  Receives the next due message and deletes it in the same step.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  KEYS[3] leases            <ns>:<qname>:leases (lua/shared/leases.lua)
  ARGV[1] "d" for the details telemetry needs; absent otherwise

  Returns { id, body, rc, fr, at }, {} when nothing is due, or -1 when the queue does not exist:
  `at` is the message's attributes `<id>:at` (JSON, false: none), rsmq 0.12.4's reply being the
  first four. With details: { id, body, rc, fr, at, now, score, tp }: the server's ms, the score
  the message had when taken (when it became visible) and its trace context `<id>:tp` (false:
  none). The message's fields are read in one HMGET.

  With a `retention` (docs/retention.md) it never returns an expired message: those it meets
  first are deleted or parked, as receiveMessage-3.lua does (at most EXPIRE_PER_CALL per call),
  and the reply then ends with the same table of what was expired: { id, body, rc, fr, at, expired }
  or { expired } when no live message was due.

  A paused queue, or one whose rate limit or block (lua/shared/queue-gate.lua) holds receives
  back, answers {} as when nothing is due, and writes nothing; a pop under a limit spends its
  token in `rltat`.

  A queue at its concurrency limit (lua/shared/leases.lua) answers {} too: a pop takes no slot (a
  popped message is not in flight), but it does not take past the limit either. A popped
  message's lease, if it had one from an earlier receive, goes with it.
]]
local rcall = redis.call
local unpackAll = table.unpack or unpack
local queueSet, queueHash, leasesKey = KEYS[1], KEYS[2], KEYS[3]
local details = ARGV[1] == "d"

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

-- isExpired, expireMessages and takeLiveDue (and EXPIRE_PER_CALL, PARK_MS) are
-- lua/shared/expiry.lua, which the loader puts before this script.

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "retention", "expireto", "paused", "ratelimit", "rltat", "rlblock", "concurrency")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs, seconds, micros = serverNowMs()
local now = string.format("%d", nowMs)

-- queueGate is lua/shared/queue-gate.lua: held back by a pause, a limit or a block, a pop takes
-- nothing and writes nothing, and answers as when nothing is due.
local gate
if settings[6] or settings[7] or settings[9] then
  local take, held
  take, held, gate = queueGate(settings[6], settings[7], settings[8], settings[9], nowMs, seconds, micros, 1)
  if held or take == 0 then
    return {}
  end
end
-- leaseKit is lua/shared/leases.lua: its room (the first function) only reads; the stale leases
-- it finds wait for a receive.
if settings[10] and (leaseKit())(leasesKey, queueSet, tonumber(settings[10]), 1, nowMs) == 0 then
  return {}
end

local ids
local retention = tonumber(settings[4] or "0") or 0
local expiry = nil
if retention > 0 then
  local live, scores, refusedExpiry
  expiry = { 0, settings[5] or "" }
  live, scores, refusedExpiry = takeLiveDue(queueSet, queueHash, nowMs, 1, details, retention, settings[5], expiry)
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
-- The body and attributes (and the trace context with details) in one read, before the first
-- write; the first-receive time only for a message received before, as rsmq 0.12.4 reads it, so a
-- pop without attributes costs what it did.
local stored
if details then
  stored = rcall("HMGET", queueHash, id, id .. ":at", id .. ":tp")
else
  stored = rcall("HMGET", queueHash, id, id .. ":at")
end
local refused = refusedCommand("zrem", "hdel")
if not refused and gate then
  refused = refusedCommand("hset")
end
if refused then
  return refused
end
rcall("HINCRBY", queueHash, "totalrecv", 1)
local body = stored[1]
local rc = rcall("HINCRBY", queueHash, id .. ":rc", 1)
local fr = now
if rc ~= 1 then
  -- HMGET, the script's first command, is never the one an ACL refuses after a write.
  fr = rcall("HMGET", queueHash, id .. ":fr")[1]
end
rcall("ZREM", queueSet, id)
rcall("HDEL", queueHash, id, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":tp", id .. ":at")
if settings[10] then
  rcall("ZREM", leasesKey, id)
end
if gate then
  rcall("HSET", queueHash, "rltat", (gate.spend(1, false)))
end
if details then
  return { id, body, rc, fr, stored[2], now, ids[2], stored[3], expiry }
end
return { id, body, rc, fr, stored[2], expiry }
