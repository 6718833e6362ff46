--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that stores new messages
  (sendMessage, sendMessageOnce, sendMessages), after message-score.lua and rate-limits.lua, whose
  messageScore and rateLimits it calls. It reads and writes nothing itself.

  sendGate(paused, ratelimit, rltat, nowUs): from the `:Q` fields the send's HMGET read (see
  queue-gate.lua) and the server's TIME in us: nil when the scores are messageScore's (no hard
  pause, no pace: the common case costs the send this one call); else a table:
  - score(nowMs, delaySeconds, priority): the score (text) of the next message and when it is
    due (ms). Paced (`ratelimit` mode `p`), the message is visible at its slot, floor(slot / 1000)
    ms (rate-limits.lua: slot = max(now + delay, max over limits of tat - tau), each tat then
    max(tat, slot) + T), so no window of perMs makes more than max + burst visible, and every
    consumer, rsmq 0.12.4's included, takes only what is visible. Priority does not back-date a
    paced message, and a delayed one takes its slot at its due time (sends after it queue behind
    it). A hard pause (kind `h`) then adds HARD_PAUSE_OFFSET_MS, whatever the score is.
  - rltat(): the `rltat` text to write after pacing (nil when nothing is paced).
]]
local HARD_PAUSE_OFFSET_MS = 100000000000000

local function sendGate(paused, ratelimit, rltat, nowUs)
  local shift = 0
  if paused and string.sub(paused, -1) == "h" then
    shift = HARD_PAUSE_OFFSET_MS
  end
  local pace = ratelimit and rateLimits(ratelimit, rltat, nowUs)
  if pace and pace.mode ~= "p" then
    pace = nil
  end
  if shift == 0 and not pace then
    return nil
  end
  local send = {}
  function send.score(nowMs, delaySeconds, priority)
    if pace then
      local dueMs = math.floor(pace.slot(nowUs + delaySeconds * 1000000) / 1000) + shift
      return string.format("%d", dueMs), dueMs
    end
    local shifted = tonumber(messageScore(nowMs, delaySeconds, priority)) + shift
    return string.format("%d", shifted), math.floor(nowMs + delaySeconds * 1000) + shift
  end
  function send.rltat()
    return pace and pace.text() or nil
  end
  return send
end
