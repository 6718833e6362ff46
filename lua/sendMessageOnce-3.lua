--[[
  Sends a message at most once per deduplication window (docs/idempotent-sends.md): the first
  send with a dedupId claims KEYS[3] with `SET NX PX window`, holding the message's id; a send
  that finds the key taken stores nothing and answers the id it holds, even when that message
  was received or deleted since. The key is in the queue's hash slot, and its TTL bounds what a
  deleteQueue that does not know it (rsmq 0.12.4's) leaves behind.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  KEYS[3] dedup key         <ns>:<qname>:dedup:<sha256 of the dedupId>
  ARGV[1] to ARGV[8] as lua/sendMessage-2.lua's, all present ("" where unused; ARGV[6] the body
          length)
  ARGV[9] the window in ms, or "" for the queue's `dedupwindow`, else 300000
  ARGV[10], ARGV[11] lua/sendMessage-2.lua's ARGV[9] (attributes) and ARGV[10] (tenant); absent
          or "" for none; a tenant's message is scored as lua/sendMessage-2.lua's header says

  Returns what sendMessage-2.lua returns when the message is stored (its id, -1 when the queue
  does not exist, -3 when the message is longer than maxsize, { id, error, command } when the
  notification was refused); { firstId, "duplicate" } when the dedupId was taken.
]]
local rcall = redis.call
local queueSet, queueHash, dedupKey = KEYS[1], KEYS[2], KEYS[3]
local randomPart, body, channel = ARGV[1], ARGV[2], ARGV[3]
local wake, sharded = notifyMode(ARGV[4])
local delayArg, length, carried = ARGV[5], tonumber(ARGV[6]), ARGV[7]
local priority = tonumber(ARGV[8]) or 0

-- refusedCommand(...) is lua/shared/refused-command.lua; sendDelay, newMessageId, storeMessage,
-- notifyMode, notifySent, wakeWanted and notifyWake are lua/shared/store-message.lua (with messageScore), and fairScore
-- lua/shared/fair-score.lua, which the loader puts before this script.

local DEFAULT_WINDOW_MS = "300000"

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "dedupwindow", "paused", "ratelimit", "rltat")
local delay, code = sendDelay(settings, length, delayArg)
if not delay then
  return code
end
local window = ARGV[9]
if window == "" then
  window = settings[4] or DEFAULT_WINDOW_MS
end

local id, nowMs, nowUs = newMessageId(randomPart)

-- The claim is the first write: every command after it (storeMessage's ZADD included) is checked
-- before it, or a refused ZADD would leave the key claimed for a message never stored.
local refused = refusedCommand("set", "get", "zadd", "hset", "hincrby")
local tenant = ARGV[11]
-- A tenant's send reads its tag and the head (fairScore) after the claim: checked before it too.
if not refused and tenant and tenant ~= "" then
  refused = refusedCommand("zrangebyscore", "hget")
end
if refused then
  return refused
end
if not rcall("SET", dedupKey, id, "NX", "PX", window) then
  local first = rcall("GET", dedupKey)
  return { first, "duplicate" }
end
-- A hard pause or a paced rate limit (sendGate, lua/shared/send-gate.lua) changes the score; a
-- duplicate (above) spends no slot.
local send = (settings[5] or settings[6]) and sendGate(settings[5], settings[6], settings[7])
local score, dueMs, rltat, fairTag
if tenant and tenant ~= "" and delay == 0 and not (send and send.paced) then
  -- A tenant's message: scored fairly among the tenants' (fairScore, lua/shared/fair-score.lua).
  local shift = send and send.shift or 0
  score, fairTag = fairScore(queueSet, queueHash, tenant, nowMs, priority, shift)
  dueMs = nowMs + shift
elseif send then
  score, dueMs = send.score(nowMs, nowUs, delay, priority)
  rltat = send.paced and send.rltat()
else
  score, dueMs = messageScore(nowMs, delay, priority), nowMs + delay * 1000
end
-- Asked before the message is stored: it would be the one it finds.
local waking = wake and wakeWanted(queueSet, nowMs, dueMs)
-- Checked above already, before the claim: nothing is refused here.
storeMessage(queueSet, queueHash, id, body, carried, score, rltat, ARGV[10], tenant, fairTag)
if channel == "" then
  return id
end
if wake then
  return waking and notifyWake(channel, sharded, id) or id
end
return notifySent(queueSet, channel, sharded, id)
