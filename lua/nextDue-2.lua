--[[
  Looks, without writing anything, whether a message is due and otherwise when the next one will
  be: the read-only half of receiveMessage, for a Worker's polls that no wake or due time
  prompted. Flagged no-writes, it answers on a full server and during CLIENT PAUSE WRITE.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q

  Returns { nextDue } where nextDue is the milliseconds from now until the earliest message is
  visible (0: one is due now), or -1 for an empty queue. Returns -1 when the queue does not exist.

  A queue with a `retention` that holds messages, whose sweep lock is free and whose last sweep
  (`sweptat`) is SWEEP_EVERY_MS old or more, gets { nextDue, 1 }: a sweep is wanted, and the
  Worker's next look is a chunk of lua/sweepExpired-2.lua instead (docs/retention.md). Any other
  queue gets the reply it always got.

  Held back (lua/shared/queue-gate.lua): { "paused:<ms>" } while the queue is paused, and
  { "limited:<ms>:<intervalMs>" } when a message is due now but its rate limit has no token left
  or a block holds receives; the receive would take nothing then either.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "retention", "sweeplock", "sweptat", "paused", "ratelimit", "rltat", "rlblock")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end

-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs, seconds, micros = serverNowMs()

-- queueGate is lua/shared/queue-gate.lua: a pause answers whatever is due; a limit or a block
-- only when a message is due now and no token is left.
local held
if settings[7] or settings[8] or settings[10] then
  local _
  _, held = queueGate(settings[7], settings[8], settings[9], settings[10], nowMs, seconds, micros, 1)
  if held and string.byte(held, 1) == 112 then -- "p": paused
    return { held }
  end
end

local first = rcall("ZRANGE", queueSet, 0, 0, "WITHSCORES")
if #first == 0 then
  return { -1 }
end
local dueMs = math.max(0, tonumber(first[2]) - nowMs)
if held and dueMs == 0 then
  return { held }
end

-- How often an idle Worker sweeps its queue, at most.
local SWEEP_EVERY_MS = 60000
if (tonumber(settings[4] or "0") or 0) > 0 then
  local lockUntil = tonumber(string.match(settings[5] or "", ":(%d+)$") or "0")
  local sweptAt = tonumber(settings[6] or "0") or 0
  if lockUntil <= nowMs and nowMs - sweptAt >= SWEEP_EVERY_MS then
    return { dueMs, 1 }
  end
end
return { dueMs }
