--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that stores a tenant's
  message (sendMessage, sendMessageOnce, sendMessages), after message-score.lua, whose
  PRIORITY_STEP_MS it reads. docs/fair-queues.md says what order it gives, and why.

  fairScore(queueSet, queueHash, tenant, nowMs, priority, shift, last): the score (text) of a
  tenant's message sent now, not delayed, at `priority`, on a queue whose scores a hard pause
  shifts by `shift` (0 when not paused); then the tag to write as `~fq:<tenant>` in the
  message's HSET (text), and the same tag as a number (a batch hands it back as `last` for the
  tenant's next entry; nil: read the field, false: the tenant has none). Start-time fair queuing
  on scores, as priorities are (docs/fair-queues.md):
  - base = nowMs - priority * PRIORITY_STEP_MS + shift: where a plain send at that level goes;
  - head = the lowest score waiting at that level (ZRANGEBYSCORE from half a step below base:
    in-flight and delayed messages score above base, other levels a whole step away), or
    base - FAIR_BAND_MS when none waits: in the past, so a lone flood gets a distinct visible
    score per message (a batch of 1000 is one ms) and is received at once (work-conserving);
  - score = min(base, max(head, last + 1)): a tenant's messages are spaced 1 ms apart from the
    head, so a quiet tenant's next message goes next in line, not behind a flood.
  The tag is the score without the priority's step and the pause's shift, so one field serves
  every level and outlives a pause's resume. Costs one HGET (unless `last` is given) and one
  ZRANGEBYSCORE; a send without a tenant never calls it.
]]
local FAIR_BAND_MS = 60000
-- Half a step: the lowest score still at this level (a step apart, ≫ any message's wait).
local FAIR_LEVEL_REACH = PRIORITY_STEP_MS / 2

local function fairScore(queueSet, queueHash, tenant, nowMs, priority, shift, last)
  local unshift = priority * PRIORITY_STEP_MS - shift
  local base = nowMs - unshift
  local first = redis.call("ZRANGEBYSCORE", queueSet, string.format("%d", base - FAIR_LEVEL_REACH), string.format("%d", base), "WITHSCORES", "LIMIT", "0", "1")
  local placed = first[2] and tonumber(first[2]) or base - FAIR_BAND_MS
  if last == nil then
    last = redis.call("HGET", queueHash, "~fq:" .. tenant)
    last = last and tonumber(last)
  end
  if last and last - unshift + 1 > placed then
    placed = last - unshift + 1
  end
  if placed > base then
    placed = base
  end
  local tag = placed + unshift
  return string.format("%d", placed), string.format("%d", tag), tag
end
