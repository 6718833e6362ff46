--[[
  Put by the loader (lib/scripts/script-files.ts) before queue-gate.lua and send-gate.lua, which
  call it. It reads and writes nothing: the caller hands it the `:Q` fields its HMGET read.

  rateLimits(ratelimit, rltat, nowUs): the queue's rate limits, from `ratelimit` =
  `<mode>;<max>/<perMs>/<burst>[,...]` and `rltat` = `<tat_us>[,...]` (each limit's GCRA
  theoretical arrival time, integer microseconds on the server clock, in the limits' order;
  missing: 0), at nowUs (TIME in us). Returns nil for a value it cannot read, else a table:
  - mode: "r" (checked at receive) or "p" (paced at send);
  - allowed(): how many every limit lets through now (the least of them), and when 0, the ms
    until one may be taken and the interval (ms) of the limit that holds it back longest;
  - spend(k): k taken now; returns the `rltat` text to write;
  - wait(): the `limited:<ms>:<intervalMs>` text once spent (what a batch cut short replies);
  - slot(baseUs): a paced send due at baseUs: the slot (us) it becomes visible at, spent;
  - text(): the `rltat` text of the tats as they are now.

  GCRA, per limit: T = ceil(perMs * 1000 / max) us, tau = burst * T. At nowUs a receive may take
  floor((nowUs - max(tat, nowUs) + tau) / T) + 1 (0 when negative), and taking k moves tat to
  max(tat, nowUs) + k * T. Nothing is spent when nothing is taken, so empty polls cost no token,
  and no window of perMs ever sees more than max + burst: the bucket is one number per limit,
  with no window boundary to double at. A paced send takes slot = max(baseUs, max over limits of
  tat - tau), and each tat moves to max(tat, slot) + T.

  Everything is inside the one function, so a script pays for these closures only on a queue
  that has a limit: defining a function costs the server on every call of the script.
]]
local function rateLimits(ratelimit, rltat, nowUs)
  local mode, list = string.match(ratelimit, "^(%a);(.+)$")
  if mode == nil then
    return nil
  end
  local n, periods, taus, tats = 0, {}, {}, {}
  for max, perMs, burst in string.gmatch(list, "(%d+)/(%d+)/(%d+)") do
    n = n + 1
    periods[n] = math.ceil(tonumber(perMs) * 1000 / tonumber(max))
    taus[n] = tonumber(burst) * periods[n]
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

  local limits = { mode = mode }

  function limits.allowed()
    local allowed, waitUs, interval = nil, 0, 0
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
      if allowed == nil or mine < allowed then
        allowed = mine
      end
    end
    return allowed, math.ceil(waitUs / 1000), math.ceil(interval / 1000)
  end

  function limits.text()
    local texts = {}
    for i = 1, n do
      texts[i] = string.format("%d", tats[i])
    end
    return table.concat(texts, ",")
  end

  function limits.spend(taken)
    for i = 1, n do
      local tat = tats[i]
      if tat < nowUs then
        tat = nowUs
      end
      tats[i] = tat + taken * periods[i]
    end
    return limits.text()
  end

  function limits.wait()
    local _, waitMs, intervalMs = limits.allowed()
    return "limited:" .. string.format("%d", waitMs) .. ":" .. string.format("%d", intervalMs)
  end

  function limits.slot(baseUs)
    local slot = baseUs
    for i = 1, n do
      local earliest = tats[i] - taus[i]
      if earliest > slot then
        slot = earliest
      end
    end
    for i = 1, n do
      local tat = tats[i]
      if tat < slot then
        tat = slot
      end
      tats[i] = tat + periods[i]
    end
    return slot
  end

  return limits
end
