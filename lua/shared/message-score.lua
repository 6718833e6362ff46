--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that calls messageScore or
  reads PRIORITY_STEP_MS (queueStates, for the priority levels' bands).

  messageScore(nowMs, delaySeconds, priority): the sorted-set score of a message sent now. A
  delayed message is due at nowMs + delay, whatever its priority. One visible at once is scored
  back by PRIORITY_STEP_MS per level (lib/operations/priority.ts holds the same step), so every
  client, rsmq 0.12.4 included, receives a larger priority first and, within a level, by send
  time. The score is formatted as a whole number: ZADD takes it as the string rsmq writes.
]]
local PRIORITY_STEP_MS = 1000000000000

local function messageScore(nowMs, delaySeconds, priority)
  if delaySeconds > 0 or priority == 0 then
    return string.format("%d", math.floor(nowMs + delaySeconds * 1000))
  end
  return string.format("%d", math.floor(nowMs - priority * PRIORITY_STEP_MS))
end
