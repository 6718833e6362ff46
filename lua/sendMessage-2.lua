--[[
  Sends a message. The id is the server's microsecond TIME in base36 (10 chars) followed by the
  22 random characters the client drew, as rsmq 0.12.4 builds it.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] 22 random chars [A-Za-z0-9]
  ARGV[2] message body
  ARGV[3] the channel to notify: the realtime channel <ns>:rt:<qname> (with realtime), or the
          wake channel <ns>:wake:<qname>; absent or "" for no notification
  ARGV[4] how: "wake" (or absent) the message's id by PUBLISH, only when wakeWanted says a
          sleeping consumer needs it (lua/shared/store-message.lua); "" rsmq's realtime
          notification, the queue's ZCARD by PUBLISH after every send; "wake-sharded" and
          "sharded" the same by SPUBLISH (Redis Cluster), falling back to PUBLISH on a server
          without it
  ARGV[5] delay in seconds; absent or "" for the queue's default
  ARGV[6] body length in UTF-16 code units (what rsmq compares with maxsize); absent or "" when
          it is at most 1024, the smallest maxsize, so never too long
  ARGV[7] the trace context to carry (telemetry): stored as `<id>:tp`, a field rsmq 0.12.4 never
          reads; absent or "" for none
  ARGV[8] priority 0 to 9 (lua/shared/message-score.lua); absent or "" for 0
  ARGV[9] the message's attributes, JSON (lib/operations/message-attributes.ts), stored as
          `<id>:at`, a field rsmq 0.12.4 never reads; absent or "" for none. ARGV[6] is then the
          body's length plus the JSON's, both counted against maxsize
  ARGV[10] the message's tenant (its `tenant` attribute, for fair ordering); absent or "" for none.
          A tenant's message sent without delay is scored by fairScore (lua/shared/fair-score.lua,
          docs/fair-queues.md), which writes its tag `~fq:<tenant>` in the body's HSET
  Each argument costs the server a string to build, so the client leaves off trailing ones it
  does not need: a send at the defaults (a wake, no delay) passes three, one without any
  notification two. The order puts the most often needed first.

  A hard pause shifts the score, a rate limit in pace mode spaces it (lua/shared/send-gate.lua):
  the fields `paused`, `ratelimit` and `rltat` are read in the settings' HMGET.

  Returns the id, -1 when the queue does not exist, -3 when the message is longer than maxsize;
  { id, error, command } when the message was stored but a command of its realtime notification
  (ZCARD, then PUBLISH or SPUBLISH) or its wake (PUBLISH or SPUBLISH) was refused.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local randomPart, body = ARGV[1], ARGV[2]
local channel = ARGV[3] or ""
local wake, sharded = notifyMode(ARGV[4] or "wake")
local delayArg, carried = ARGV[5] or "", ARGV[7] or ""
-- tonumber only when given: each C function call costs the server more than the Lua around it.
local length, priority = ARGV[6], ARGV[8]
local attributes, tenant = ARGV[9], ARGV[10]
length = length and length ~= "" and tonumber(length) or 0
priority = priority and priority ~= "" and tonumber(priority) or 0

-- refusedCommand(...) is lua/shared/refused-command.lua; fairScore is lua/shared/fair-score.lua; sendDelay, newMessageId, storeMessage,
-- notifyMode, notifySent, wakeWanted and notifyWake are lua/shared/store-message.lua (with messageScore, lua/shared/message-score.lua), which the
-- loader puts before this script.

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "paused", "ratelimit", "rltat")
local delay, code = sendDelay(settings, length, delayArg)
if not delay then
  return code
end

local id, nowMs, nowUs = newMessageId(randomPart)
-- A hard pause or a paced rate limit (sendGate, lua/shared/send-gate.lua) changes the score.
local send = (settings[4] or settings[5]) and sendGate(settings[4], settings[5], settings[6])
local score, dueMs, rltat, fairTag
if tenant and tenant ~= "" and delay == 0 and not (send and send.paced) then
  -- A tenant's message: scored fairly among the tenants' (fairScore, lua/shared/fair-score.lua).
  -- Reads only, before any write: a refusal here leaves nothing behind.
  local refused = refusedCommand("zrangebyscore", "hget")
  if refused then
    return refused
  end
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
local waking = wake and channel ~= "" and wakeWanted(queueSet, nowMs, dueMs)

local refused = storeMessage(queueSet, queueHash, id, body, carried, score, rltat, attributes, tenant, fairTag)
if refused then
  return refused
end
if channel == "" then
  return id
end
if wake then
  return waking and notifyWake(channel, sharded, id) or id
end
return notifySent(queueSet, channel, sharded, id)
