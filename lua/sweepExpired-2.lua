--[[
  One chunk of a sweep of a queue's expired messages (docs/retention.md): the due ones a receive
  would meet, and the hidden ones (in flight, delayed, parked) it would not. It walks the sorted
  set by rank, SWEEP_CHUNK members per call, from the rank the caller passes back; at most one
  sweeper per queue at a time, by the lock in the `sweeplock` field (`<token>:<until ms>`, on the
  server's clock): a chunk takes or renews it, the last chunk of a pass releases it and stamps the
  pass in `sweptat`. It also answers what lua/nextDue-2.lua answers, so a Worker's idle look can
  be a chunk and still cost one command.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] the sweeper's token (no ":")
  ARGV[2] the rank to start at: "0" for a new pass, else the `next` of the previous chunk
  ARGV[3] how long the lock holds without a next chunk, in ms

  Returns { nextDue, state, next, expired } where nextDue is as nextDue-2.lua's (ms, -1: empty),
  state is 0 when the pass is done (the lock released), 1 when there is more (pass `next` back),
  2 when another sweeper holds the lock (nothing done), and expired is
  { deleted, target or "", id1, body1, rc1, ... } as in receiveMessage-3.lua. Returns -1 when the
  queue does not exist. A queue with no retention is done at once.

  Ranks shift under a concurrent receive or send, so a pass may step over a message; the next
  pass, or the receive that meets it due, expires it. Each message is expired once: the chunk
  that takes it removes or parks it in the same script.
]]
local rcall = redis.call
local unpackAll = table.unpack or unpack
local queueSet, queueHash = KEYS[1], KEYS[2]
local token, cursor, lockMs = ARGV[1], math.floor(tonumber(ARGV[2]) or 0), math.floor(tonumber(ARGV[3]) or 30000)

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

-- isExpired and expireMessages (and EXPIRE_PER_CALL, PARK_MS) are lua/shared/expiry.lua, which
-- the loader puts before this script.

-- Members looked at per chunk: bounded work on a queue of any size.
local SWEEP_CHUNK = 100

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "retention", "expireto", "sweeplock")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()

local function nextDue()
  local first = rcall("ZRANGE", queueSet, 0, 0, "WITHSCORES")
  if #first == 0 then
    return -1
  end
  return math.max(0, tonumber(first[2]) - nowMs)
end

local retention = tonumber(settings[4] or "0") or 0
local lock = settings[6]
local holder, untilMs = nil, nil
if lock then
  holder, untilMs = string.match(lock, "^(.*):(%d+)$")
  untilMs = tonumber(untilMs)
end
local ours = holder == token
if lock and not ours and untilMs and untilMs > nowMs then
  return { nextDue(), 2, cursor, { 0, "" } }
end

local refused = refusedCommand("hset", "hdel", "zrange")
if refused then
  return refused
end
local expired = { 0, settings[5] or "" }
if retention <= 0 then
  if lock then
    rcall("HDEL", queueHash, "sweeplock")
  end
  return { nextDue(), 0, 0, expired }
end

local members = rcall("ZRANGE", queueSet, string.format("%d", cursor), string.format("%d", cursor + SWEEP_CHUNK - 1))
local old = {}
for _, id in ipairs(members) do
  if isExpired(id, nowMs, retention) then
    old[#old + 1] = id
  end
end
local refusedExpiry = expireMessages(queueSet, queueHash, old, settings[5], nowMs, expired)
if refusedExpiry then
  return refusedExpiry
end

if #members < SWEEP_CHUNK then
  rcall("HDEL", queueHash, "sweeplock")
  rcall("HSET", queueHash, "sweptat", string.format("%d", nowMs))
  return { nextDue(), 0, 0, expired }
end
rcall("HSET", queueHash, "sweeplock", token .. ":" .. string.format("%d", nowMs + lockMs))
-- Those expired left their ranks (deleted, or parked at the end): the rest moved up by as many.
return { nextDue(), 1, cursor + SWEEP_CHUNK - #old, expired }
