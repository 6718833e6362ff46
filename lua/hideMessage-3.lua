--[[
  Hides a message for a number of milliseconds from now: the worker's retry backoff and its
  visibility extension for long handlers. Unlike changeMessageVisibility it has millisecond
  precision and no queue check (the worker holds the message it hides). While the queue is
  hard-paused the new score carries the offset (lua/shared/pause.lua), so the resume restores it.
  With a concurrency limit its lease (lua/shared/leases.lua) moves with it (an extension), or ends
  now with `release` (a retry's backoff: the message waits, nobody holds it). A release neither
  touches `maxed` nor publishes: the Worker that released receives next itself.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  KEYS[3] leases            <ns>:<qname>:leases
  ARGV[1] message id   ARGV[2] milliseconds from now
  ARGV[3] the holder's receipt: hide only while `<id>:rc` is this; "" or absent for none
  ARGV[4] "1" to release its lease; absent otherwise

  Returns 1 when the message exists (and the receipt is its own), else 0: nothing written then.
]]
local rcall = redis.call
local queueSet, queueHash, leasesKey = KEYS[1], KEYS[2], KEYS[3]
local id, ms, rc = ARGV[1], tonumber(ARGV[2]), ARGV[3]
if rc == "" then
  rc = nil
end

if not rcall("ZSCORE", queueSet, id) then
  return 0
end
-- One HMGET: this runs on every retry and visibility extension.
local state
if rc then
  state = rcall("HMGET", queueHash, "paused", "concurrency", id .. ":rc")
  if state[3] ~= rc then
    return 0
  end
else
  state = rcall("HMGET", queueHash, "paused", "concurrency")
end
-- serverNowMs() is lua/shared/now.lua, pauseOffset lua/shared/pause.lua: the loader puts both before this script.
local nowMs = serverNowMs()
local endMs = math.floor(nowMs + ms)
local refused = state[2] and refusedCommand("zadd", "zrem", "pexpire")
if refused then
  return refused
end
rcall("ZADD", queueSet, string.format("%d", endMs + pauseOffset(state[1])), id)
if state[2] then
  -- leases.lua's extendLeaseTtl: the key outlives the moved lease by its grace, no more.
  if ARGV[4] == "1" then
    rcall("ZREM", leasesKey, id)
  elseif rcall("ZADD", leasesKey, "XX", "CH", string.format("%d", endMs), id) == 1 then
    extendLeaseTtl(leasesKey, endMs, nowMs)
  end
end
return 1
