--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that receives
  (receiveMessage, deleteAndReceive, popMessage) or looks for a due message (nextDue), after
  rate-limits.lua, whose functions it calls. It reads and writes nothing itself: each script
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
  - gate: nil (or false) unless a limit counts this receive (receive mode); then, once k > 0
    were taken, gate.spend(k, cut) moves each tat to max(tat, now) + k * T and returns the
    `rltat` text to write (in the receive's own HSET) and, when `cut` (a batch the limit cut
    short while more was due), the `limited:...` text to reply.
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
  -- 114: "r", receive mode; a paced queue (or one not read) counts no receive.
  local gate = ratelimit and string.byte(ratelimit, 1) == 114 and rateLimits(ratelimit, rltat)
  local allowed, waitMs, intervalMs = count, 0, 0
  if gate then
    local nowUs = seconds * 1000000 + micros
    local n, periods, taus, tats = gate.n, gate.periods, gate.taus, gate.tats
    -- How many every limit lets through now (the least of them), and when 0, the ms until one
    -- may be taken and the interval (ms) of the limit that holds it back longest. (Defined here:
    -- only a queue with a limit pays for the closures.)
    local function allowedNow()
      local least, waitUs, interval = nil, 0, 0
      for i = 1, n do
        local tat = tats[i]
        if tat < nowUs then
          tat = nowUs
        end
        local room = nowUs - tat + taus[i]
        local mine = 0
        if room >= 0 then
          mine = math.floor(room / periods[i]) + 1
        elseif -room > waitUs then
          waitUs, interval = -room, periods[i]
        end
        if least == nil or mine < least then
          least = mine
        end
      end
      return least, math.ceil(waitUs / 1000), math.ceil(interval / 1000)
    end
    function gate.spend(taken, cut)
      local texts = {}
      for i = 1, n do
        local tat = tats[i]
        if tat < nowUs then
          tat = nowUs
        end
        tats[i] = tat + taken * periods[i]
        texts[i] = string.format("%d", tats[i])
      end
      local spent = n == 1 and texts[1] or table.concat(texts, ",")
      if not cut then
        return spent, nil
      end
      local _, ms, everyMs = allowedNow()
      return spent, "limited:" .. string.format("%d", ms) .. ":" .. string.format("%d", everyMs)
    end
    allowed, waitMs, intervalMs = allowedNow()
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
