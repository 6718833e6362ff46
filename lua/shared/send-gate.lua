--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that stores new messages
  (sendMessage, sendMessageOnce, sendMessages), after message-score.lua and rate-limits.lua, whose
  messageScore and rateLimits it calls. It reads and writes nothing itself.

  sendGate(paused, ratelimit, rltat): from the `:Q` fields the send's HMGET read (see
  queue-gate.lua): nil when the scores are messageScore's (no hard pause, no pace: the common
  case costs the send this one call); else a table:
  - send.score(nowMs, nowUs, delaySeconds, priority): the score (text) of the next message and
    when it is due (ms). Paced (`ratelimit` mode `p`), the message is visible at its slot,
  floor(slot / 1000) ms: slot = max(now, max over limits of tat - tau), and each tat then moves
  to max(tat, slot) + T, so no window of perMs makes more than max + burst of them visible, and
  every consumer, rsmq 0.12.4's included, takes only what is visible. Priority does not
  back-date a paced message. A delayed message is not paced (it is due at its delay and takes no
  slot). A hard pause (kind `h`) then adds HARD_PAUSE_OFFSET_MS, whatever the score.
  - send.paced: whether it paces; then send.rltat() is the `rltat` text to write once all are
    scored.
  - send.shift: what a hard pause adds to every score (0 when not hard-paused): a tenant's fair
    score (lua/shared/fair-score.lua) is computed in the shifted space. Paced, the pace decides
    the score and a tenant's is not used (docs/fair-queues.md).
]]
-- lua/shared/pause.lua's offset, written again here: loading that file would make every send
-- define its four functions, and each function a script defines costs Redis about 1,000
-- instructions on every call (callgrind), a cost every send would pay for a rare pause.
local HARD_PAUSE_OFFSET_MS = 100000000000000

local function sendGate(paused, ratelimit, rltat)
  local shift = 0
  if paused and string.sub(paused, -1) == "h" then
    shift = HARD_PAUSE_OFFSET_MS
  end
  -- 112: "p", pace mode; a receive-mode limit leaves the sends alone.
  local pace = ratelimit and string.byte(ratelimit, 1) == 112 and rateLimits(ratelimit, rltat)
  if shift == 0 and not pace then
    return nil
  end
  -- Defined here: only a hard-paused or paced queue pays for the closures.
  local send = { paced = pace and true or false, shift = shift }
  function send.score(nowMs, nowUs, delaySeconds, priority)
    -- A delayed message is not paced: its slot would be its due time, and every send after it
    -- would queue behind that (one message delayed an hour would hold the queue's sends an hour).
    if not pace or delaySeconds > 0 then
      local shifted = tonumber(messageScore(nowMs, delaySeconds, priority)) + shift
      return string.format("%d", shifted), math.floor(nowMs + delaySeconds * 1000) + shift
    end
    local slot = nowUs + delaySeconds * 1000000
    local periods, taus, tats = pace.periods, pace.taus, pace.tats
    for i = 1, pace.n do
      local earliest = tats[i] - taus[i]
      if earliest > slot then
        slot = earliest
      end
    end
    for i = 1, pace.n do
      local tat = tats[i]
      if tat < slot then
        tat = slot
      end
      tats[i] = tat + periods[i]
    end
    local dueMs = math.floor(slot / 1000) + shift
    return string.format("%d", dueMs), dueMs
  end
  function send.rltat()
    local texts = {}
    for i = 1, pace.n do
      texts[i] = string.format("%d", pace.tats[i])
    end
    return table.concat(texts, ",")
  end
  return send
end
