--[[
  Put by the loader (lib/scripts/script-files.ts) before queue-gate.lua and send-gate.lua, which
  call it. It reads and writes nothing: the caller hands it the `:Q` fields its HMGET read.

  rateLimits(ratelimit, rltat): the queue's rate limits, from `ratelimit` =
  `<mode>;<max>/<perMs>/<burst>[,...]` and `rltat` = `<tat_us>[,...]` (each limit's GCRA
  theoretical arrival time, integer microseconds on the server clock, in the limits' order;
  missing: 0). Returns nil for a value it cannot read, else { mode, n, periods, taus, tats }:
  mode "r" (checked at receive) or "p" (paced at send); per limit i, periods[i] = T =
  ceil(perMs * 1000 / max) us, taus[i] = tau = burst * T, tats[i] its tat. What is done with
  them is queue-gate.lua's (receives) and send-gate.lua's (paced sends).

  GCRA, per limit: at nowUs a receive may take floor((nowUs - max(tat, nowUs) + tau) / T) + 1 (0
  when negative), and taking k moves tat to max(tat, nowUs) + k * T (queue-gate.lua). Nothing is
  spent when nothing is taken, so empty polls cost no token, and no window of perMs ever sees
  more than max + burst: the bucket is one number per limit, with no window boundary to double at.

  One top-level function per shared file, and none defined inside a call: each definition costs
  the server about a thousand instructions on every call of every script that includes it,
  whether the queue has a limit or not. One limit (the common case) is read with one match.
]]
local function rateLimits(ratelimit, rltat)
  local mode, max, perMs, burst = string.match(ratelimit, "^(%a);(%d+)/(%d+)/(%d+)$")
  if mode then
    local period = math.ceil(tonumber(perMs) * 1000 / tonumber(max))
    return { mode = mode, n = 1, periods = { period }, taus = { tonumber(burst) * period }, tats = { rltat and tonumber(rltat) or 0 } }
  end
  local list
  mode, list = string.match(ratelimit, "^(%a);(.+)$")
  if mode == nil then
    return nil
  end
  local n, periods, taus, tats = 0, {}, {}, {}
  for each, per, extra in string.gmatch(list, "(%d+)/(%d+)/(%d+)") do
    n = n + 1
    periods[n] = math.ceil(tonumber(per) * 1000 / tonumber(each))
    taus[n] = tonumber(extra) * periods[n]
    tats[n] = 0
  end
  if n == 0 then
    return nil
  end
  if rltat then
    local i = 0
    for tat in string.gmatch(rltat, "%d+") do
      i = i + 1
      if i > n then
        break
      end
      tats[i] = tonumber(tat)
    end
  end
  return { mode = mode, n = n, periods = periods, taus = taus, tats = tats }
end
