--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that receives
  (receiveMessage, deleteAndReceive, popMessage) or looks for a due message (nextDue), after
  rate-limits.lua, whose rateLimits it calls. It reads and writes nothing itself: each script
  reads the `:Q` fields below in the HMGET it already makes, hands them over, and writes what it
  is told to in its own writes.

  The fields (lib/operations/queue-fields.ts):
  - `paused` = `<sinceMs>:<untilMs or empty>:<kind>`; kind `s` (soft), `h` (hard) or `r` (a hard
    pause's restore still running: not paused). Paused iff kind ~= "r" and `until` is empty or
    still ahead on the server clock (an `until` passed reads as over: nothing needs deleting).
  - `ratelimit`, `rltat`: the limits and their GCRA state (rate-limits.lua). In pace mode (`p`)
    the sends are limited, and receives obey blocks only.
  - `rlblock` = `<untilMs>`: receives blocked until then (rateLimitQueue, a handler's RateLimitError).

  queueGate(paused, ratelimit, rltat, rlblock, nowMs, seconds, micros, count): for a receive of up
  to `count`. Returns take, held, gate:
  - held: nil, or the text the receive replies with in place of its next due time:
    `paused:<ms>` (ms until `until`; -1: until a resume), whatever is due; or
    `limited:<ms>:<intervalMs>` (a block: interval 0), to reply only when a message is due now
    (else the normal reply, the queue's next due time). Nothing is written either way.
  - take: how many it may take (count for a queue with no limit; 0 when held).
  - gate: nil unless a limit counts this receive; then gate.spend(k) gives the `rltat` text to
    write when k > 0 were taken (in the receive's own HSET), and gate.wait() afterwards the
    `limited:...` text of a batch the limit cut short while more was due.
  A block and a limit both in force: the one that ends later is told.
]]
local function queueGate(paused, ratelimit, rltat, rlblock, nowMs, seconds, micros, count)
  if paused then
    local untilMs, kind = string.match(paused, "^%d*:(%d*):(%a)$")
    if kind and kind ~= "r" then
      if untilMs == "" then
        return 0, "paused:-1", nil
      end
      local left = tonumber(untilMs) - nowMs
      if left > 0 then
        return 0, "paused:" .. string.format("%d", left), nil
      end
    end
  end
  local blockMs = rlblock and (tonumber(rlblock) or 0) - nowMs or 0
  local gate = ratelimit and rateLimits(ratelimit, rltat, seconds * 1000000 + micros)
  if gate and gate.mode ~= "r" then
    gate = nil
  end
  local allowed, waitMs, intervalMs = count, 0, 0
  if gate then
    allowed, waitMs, intervalMs = gate.allowed()
  end
  if blockMs > 0 and blockMs >= waitMs then
    return 0, "limited:" .. string.format("%d", blockMs) .. ":0", gate
  end
  if allowed == 0 then
    return 0, "limited:" .. string.format("%d", waitMs) .. ":" .. string.format("%d", intervalMs), gate
  end
  if allowed < count then
    return allowed, nil, gate
  end
  return count, nil, gate
end
