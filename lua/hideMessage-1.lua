--[[
  Hides a message for a number of milliseconds from now: the worker's retry backoff and its
  visibility extension for long handlers. Unlike changeMessageVisibility it has millisecond
  precision and no queue check (the worker holds the message it hides).

  KEYS[1] queue sorted set  <ns>:<qname>
  ARGV[1] message id   ARGV[2] milliseconds from now

  Returns 1 when the message exists, else 0.
]]
local rcall = redis.call
local queueSet = KEYS[1]
local id, ms = ARGV[1], tonumber(ARGV[2])

if not rcall("ZSCORE", queueSet, id) then
  return 0
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()
rcall("ZADD", queueSet, string.format("%d", math.floor(nowMs + ms)), id)
return 1
