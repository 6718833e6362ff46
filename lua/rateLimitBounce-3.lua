--[[
  A Worker's handler said the downstream is rate-limited (RateLimitError): with ms, the queue's
  receives are blocked until now + ms (or a later block in force); the message goes back, hidden
  until the block ends (at least ms, 1000 without one), and its delivery is not counted: `<id>:rc`
  goes down by one (not below 0), so a bounce never spends the message's delivery budget. While
  the queue is hard-paused its new score carries the offset (lua/shared/pause.lua). With a
  concurrency limit its lease (lua/shared/leases.lua) ends now: the message waits, nobody holds it
  (no `~free:`: the Worker that bounced it receives next itself).

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  KEYS[3] leases            <ns>:<qname>:leases
  ARGV[1] message id   ARGV[2] ms ("": no block, the message comes back in 1000 ms)
  ARGV[3] the holder's receipt: only while `<id>:rc` is this; absent for none

  Returns the ms until the message is visible again, or -1 when it is gone or the receipt is not
  its own (nothing written).
]]
local rcall = redis.call
local queueSet, queueHash, leasesKey = KEYS[1], KEYS[2], KEYS[3]
local id, ms, rc = ARGV[1], tonumber(ARGV[2]), ARGV[3]

local state = rcall("HMGET", queueHash, "rlblock", "paused", id .. ":rc", "concurrency")
if rc and state[3] ~= rc then
  return -1
end
if not rcall("ZSCORE", queueSet, id) then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()
local block = tonumber(state[1]) or 0
if ms then
  block = math.max(block, nowMs + ms)
end
local visibleAt = math.max(block, nowMs + (ms or 1000))
local receives = tonumber(state[3]) or 0
-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.
local refused = refusedCommand("hset", "hincrby")
if not refused and state[4] then
  refused = refusedCommand("zrem")
end
if refused then
  return refused
end
-- pauseOffset(...) is lua/shared/pause.lua, which the loader puts before this script.
rcall("ZADD", queueSet, "XX", string.format("%d", visibleAt + pauseOffset(state[2])), id)
if ms then
  rcall("HSET", queueHash, "rlblock", string.format("%d", block))
end
if receives > 0 then
  rcall("HINCRBY", queueHash, id .. ":rc", "-1")
end
if state[4] then
  rcall("ZREM", leasesKey, id)
end
return visibleAt - nowMs
