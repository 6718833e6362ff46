--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that receives or scores a
  new message (receiveMessage, deleteAndReceive, popMessage, nextDue, the sends). It reads and
  writes nothing itself: each script reads the `:Q` fields below in the HMGET it already makes,
  hands them over, and writes what it is told to in its own writes.

  The fields (lib/operations/queue-fields.ts; docs/fleet-controls.md):
  - `paused` = `<sinceMs>:<untilMs or empty>:<kind>`; kind `s` (soft), `h` (hard: every score
    shifted by HARD_PAUSE_OFFSET_MS) or `r` (a hard pause's restore still running: not paused).
    Paused iff kind ~= "r" and `until` is empty or still ahead on the server clock.
  - `ratelimit` = `<mode>;<max>/<perMs>/<burst>[,...]`: mode `r` checked at receive, `p` paced at
    send (receives then obey blocks only).
  - `rltat` = `<tat_us>[,...]`: each limit's GCRA theoretical arrival time, integer microseconds
    on the server clock, in the limits' order (missing: 0).
  - `rlblock` = `<untilMs>`: receives blocked until then.

  GCRA, per limit: T = ceil(perMs * 1000 / max) us, tau = burst * T. A receive at nowUs may take
  floor((nowUs - max(tat, nowUs) + tau) / T) + 1 (0 when negative), and taking k moves tat to
  max(tat, nowUs) + k * T. Nothing is spent when nothing is taken, so empty polls cost no token,
  and no window of perMs ever sees more than max + burst: the bucket is one number, with no
  window boundary to double at.

  queueGate(paused, ratelimit, rltat, rlblock, nowMs, seconds, micros, count): for a receive of up
    to `count`. Returns take, held, gate: `held` is nil or the text the receive replies with in
    place of its next due time: `paused:<ms>` (ms until `until`, -1 until a resume: the caller
    then takes nothing, whatever is due) or `limited:<ms>:<intervalMs>` (take is 0: the caller
    replies it only when a message is due, else its normal reply). `take` is how many it may take
    (count for a queue with no limit). `gate` is nil unless a limit counts this receive; then
    gateSpent(gate, k) gives the `rltat` text to write when k > 0 were taken, and gateWait(gate)
    afterwards the `limited:...` text of a batch the limit cut short.
  hardPaused(paused): whether new scores take HARD_PAUSE_OFFSET_MS (kind `h`).
  paceGate(ratelimit, rltat): nil unless the queue paces its sends (mode `p`); else the gate that
    paceSlot(gate, baseUs) spaces: it returns the slot (us) a message due at baseUs becomes visible
    at, spending it, and gateText(gate) the `rltat` to write once all are placed.
  sendGate(paused, ratelimit, rltat): for a send (fields read in its HMGET): nil when its scores
    are messageScore's (no hard pause, no pace: the common case costs this one check); else the
    state gatedScore(send, nowMs, nowUs, delaySeconds, priority) scores with, one message after
    the other: the score text and its due time in ms. A paced message is visible at its slot,
    floor(slot / 1000) ms: slot = max(now + delay, max over limits of tat - tau), and each tat then
    moves to max(tat, slot) + T, so no window of perMs makes more than max + burst visible (every
    consumer, rsmq 0.12.4's included, takes only what is visible). Priority does not back-date a
    paced message, and a delayed one takes its slot at its due time, so sends after it queue
    behind it. A hard pause adds HARD_PAUSE_OFFSET_MS to whatever the score is. The caller writes
    gateText(send.pace) to `rltat` when it paced anything.
]]
local HARD_PAUSE_OFFSET_MS = 100000000000000

local function hardPaused(paused)
  return paused ~= nil and paused ~= false and string.sub(paused, -1) == "h"
end

-- The pause's `paused:<ms>` text, or nil when the queue takes messages (no pause, a restore, or
-- an `until` already passed, which simply reads as over: nothing needs deleting).
local function pauseHold(paused, nowMs)
  local untilMs, kind = string.match(paused, "^%d*:(%d*):(%a)$")
  if kind == nil or kind == "r" then
    return nil
  end
  if untilMs == "" then
    return "paused:-1"
  end
  local left = tonumber(untilMs) - nowMs
  if left <= 0 then
    return nil
  end
  return "paused:" .. string.format("%d", left)
end

-- The limits of `ratelimit` and their tats: { mode, n, T = {...}, tau = {...}, tat = {...} }.
local function parseLimits(ratelimit, rltat)
  local mode, list = string.match(ratelimit, "^(%a);(.+)$")
  if mode == nil then
    return nil
  end
  local gate = { mode = mode, n = 0, T = {}, tau = {}, tat = {} }
  for max, perMs, burst in string.gmatch(list, "(%d+)/(%d+)/(%d+)") do
    local n = gate.n + 1
    local T = math.ceil(tonumber(perMs) * 1000 / tonumber(max))
    gate.n = n
    gate.T[n] = T
    gate.tau[n] = tonumber(burst) * T
    gate.tat[n] = 0
  end
  if rltat then
    local i = 0
    for tat in string.gmatch(rltat, "%d+") do
      i = i + 1
      if i > gate.n then
        break
      end
      gate.tat[i] = tonumber(tat)
    end
  end
  return gate
end

-- How many every limit allows now (the least of them), and when 0, the ms until one may be
-- taken and the interval of the limit that holds it back longest.
local function allowedNow(gate)
  local nowUs, allowed, waitUs, interval = gate.nowUs, nil, 0, 0
  for i = 1, gate.n do
    local T, tat = gate.T[i], gate.tat[i]
    if tat < nowUs then
      tat = nowUs
    end
    local room = nowUs - tat + gate.tau[i]
    local mine = 0
    if room >= 0 then
      mine = math.floor(room / T) + 1
    elseif -room > waitUs then
      waitUs, interval = -room, T
    end
    if allowed == nil or mine < allowed then
      allowed = mine
    end
  end
  return allowed or 0, math.ceil(waitUs / 1000), math.ceil(interval / 1000)
end

local function limitedText(ms, intervalMs)
  return "limited:" .. string.format("%d", ms) .. ":" .. string.format("%d", intervalMs)
end

local function gateText(gate)
  local texts = {}
  for i = 1, gate.n do
    texts[i] = string.format("%d", gate.tat[i])
  end
  return table.concat(texts, ",")
end

local function queueGate(paused, ratelimit, rltat, rlblock, nowMs, seconds, micros, count)
  if paused then
    local held = pauseHold(paused, nowMs)
    if held then
      return 0, held, nil
    end
  end
  local blockMs = rlblock and (tonumber(rlblock) or 0) - nowMs or 0
  local gate = ratelimit and parseLimits(ratelimit, rltat)
  if gate and (gate.mode ~= "r" or gate.n == 0) then
    gate = nil
  end
  if not gate then
    if blockMs > 0 then
      return 0, limitedText(blockMs, 0), nil
    end
    return count, nil, nil
  end
  gate.nowUs = seconds * 1000000 + micros
  local allowed, waitMs, intervalMs = allowedNow(gate)
  if blockMs > 0 and blockMs >= waitMs then
    return 0, limitedText(blockMs, 0), gate
  end
  if allowed == 0 then
    return 0, limitedText(waitMs, intervalMs), gate
  end
  if allowed < count then
    return allowed, nil, gate
  end
  return count, nil, gate
end

local function gateSpent(gate, taken)
  local nowUs = gate.nowUs
  for i = 1, gate.n do
    local tat = gate.tat[i]
    if tat < nowUs then
      tat = nowUs
    end
    gate.tat[i] = tat + taken * gate.T[i]
  end
  return gateText(gate)
end

local function gateWait(gate)
  local _, waitMs, intervalMs = allowedNow(gate)
  return limitedText(waitMs, intervalMs)
end

local function paceGate(ratelimit, rltat)
  local gate = parseLimits(ratelimit, rltat)
  if not gate or gate.mode ~= "p" or gate.n == 0 then
    return nil
  end
  return gate
end

local function paceSlot(gate, baseUs)
  local slot = baseUs
  for i = 1, gate.n do
    local earliest = gate.tat[i] - gate.tau[i]
    if earliest > slot then
      slot = earliest
    end
  end
  for i = 1, gate.n do
    local tat = gate.tat[i]
    if tat < slot then
      tat = slot
    end
    gate.tat[i] = tat + gate.T[i]
  end
  return slot
end

-- What a send's scores obey: nil for a queue neither hard-paused nor paced (the scores are
-- messageScore's), else { shift, pace }: the hard pause's offset (0 without) and the pace gate.
local function sendGate(paused, ratelimit, rltat)
  local shift = hardPaused(paused) and HARD_PAUSE_OFFSET_MS or 0
  local pace = ratelimit and paceGate(ratelimit, rltat)
  if shift == 0 and not pace then
    return nil
  end
  return { shift = shift, pace = pace }
end

-- The score (text) of a message sent at nowMs (nowUs: the same TIME in us) and when it is due,
-- in ms: paced, its slot (priority does not back-date it); then shifted by a hard pause.
local function gatedScore(send, nowMs, nowUs, delaySeconds, priority)
  if send.pace then
    local dueMs = math.floor(paceSlot(send.pace, nowUs + delaySeconds * 1000000) / 1000) + send.shift
    return string.format("%d", dueMs), dueMs
  end
  local shifted = tonumber(messageScore(nowMs, delaySeconds, priority)) + send.shift
  return string.format("%d", shifted), math.floor(nowMs + delaySeconds * 1000) + send.shift
end
