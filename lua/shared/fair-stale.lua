--[[
  Put by the loader (lib/scripts/script-files.ts) before the doctor's scripts that look at, or
  remove, a tenant's fair tag `~fq:<tenant>` (doctorFields, doctorRepairFields), after now.lua and
  message-score.lua, whose serverNowMs and PRIORITY_STEP_MS it reads.

  fairStaleBelow(queueSet): the tag below which no send reads a tag any more (docs/fair-queues.md).
  A send at level p scores max(head_p, tag + 1 - p * step - shift), so a tag says nothing once it is
  below every level's head, unshifted. A level with nothing waiting has its head at now - 60 s;
  one with messages waiting at its lowest score, which no later score goes below (a new score is
  now, now + something, or a head). So: the least of now - FAIR_STALE_BAND_MS and every waiting
  level's lowest score without its step and its pause shift, looked at in both spaces (a hard
  pause's shift may be under way). Twenty ZRANGEBYSCORE of one element each: the doctor's price.
]]
local FAIR_STALE_BAND_MS = 60000
-- lua/shared/pause.lua's offset (send-gate.lua says why it is written again).
local FAIR_STALE_SHIFT_MS = 100000000000000

local function fairStaleBelow(queueSet)
  local nowMs = serverNowMs()
  local below = nowMs - FAIR_STALE_BAND_MS
  for _, shift in ipairs({ 0, FAIR_STALE_SHIFT_MS }) do
    for level = 0, 9 do
      local base = nowMs - level * PRIORITY_STEP_MS + shift
      local first = redis.call("ZRANGEBYSCORE", queueSet, string.format("%d", base - PRIORITY_STEP_MS / 2), string.format("%d", base), "WITHSCORES", "LIMIT", "0", "1")
      if first[2] then
        local unshifted = tonumber(first[2]) + level * PRIORITY_STEP_MS - shift
        if unshifted < below then
          below = unshifted
        end
      end
    end
  end
  return below
end
