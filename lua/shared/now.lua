--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that reads the server's
  clock, first: it calls nothing else shared.

  serverNowMs(): reads TIME once and returns nowMs, the server's time in whole milliseconds since
  the epoch (the clock every score, `fr` and retention age is read against), then the seconds and
  microseconds TIME answered, as numbers. Whole numbers in Lua 5.1 and 5.4 alike (below 2^53, and
  math.floor gives an integer in 5.4): a caller still formats them with string.format("%d") before
  handing them to Redis.
]]
local function serverNowMs()
  local time = redis.call("TIME")
  local seconds, micros = tonumber(time[1]), tonumber(time[2])
  local nowMs = seconds * 1000 + math.floor(micros / 1000)
  return nowMs, seconds, micros
end
