--[[
  Makes a message visible vt seconds from now (plus the hard pause's offset while the queue is
  hard-paused, lua/shared/pause.lua, so the resume restores it). With a concurrency limit its
  lease (lua/shared/leases.lua) moves with it, or ends with vt 0 (the slot frees).

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  KEYS[3] leases            <ns>:<qname>:leases
  ARGV[1] message id   ARGV[2] vt in seconds
  ARGV[3] the queue's wake channel ("": none)   ARGV[4] "1" when sharded (SPUBLISH)
  ARGV[5] the receipt: change it only while `<id>:rc` is this; absent for none

  Returns 1 when the message exists, 0 when it does not (or the receipt is not its own: nothing
  written), -1 when the queue does not exist. When vt 0 freed a lease of a queue a receive was
  held at (`maxed`): { 1, `~free:<server ms>` }, the wake it published.
]]
local rcall = redis.call
local queueSet, queueHash, leasesKey = KEYS[1], KEYS[2], KEYS[3]
local id, vt, rc = ARGV[1], tonumber(ARGV[2]), ARGV[5]

local settings
if rc then
  settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "paused", "concurrency", id .. ":rc")
else
  settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "paused", "concurrency")
end
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
if rc and settings[6] ~= rc then
  return 0
end
if not rcall("ZSCORE", queueSet, id) then
  return 0
end
-- serverNowMs() is lua/shared/now.lua, pauseOffset lua/shared/pause.lua: the loader puts both before this script.
local nowMs = serverNowMs()
local endMs = math.floor(nowMs + vt * 1000)
local refused = settings[5] and refusedCommand("zadd", "zrem", "pexpire", "hdel")
if refused then
  return refused
end
rcall("ZADD", queueSet, string.format("%d", endMs + pauseOffset(settings[4])), id)
if settings[5] then
  -- The lease ends with vt 0, else moves to the new end (XX: only a message that holds one).
  if vt == 0 then
    if rcall("ZREM", leasesKey, id) == 1 then
      local wake = announceFree(queueHash, ARGV[3], ARGV[4] == "1")
      if wake then
        return { 1, wake }
      end
    end
  elseif rcall("ZADD", leasesKey, "XX", "CH", string.format("%d", endMs), id) == 1 then
    extendLeaseTtl(leasesKey, endMs, nowMs)
  end
end
return 1
