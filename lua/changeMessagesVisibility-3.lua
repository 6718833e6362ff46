--[[
  Makes several messages of one queue visible vt seconds from now, as changeMessageVisibility
  does for one (plus the hard pause's offset while the queue is hard-paused, lua/shared/pause.lua).
  A message counts only when it is both a member of the sorted set and has its body
  in the hash: a member left without its body (or a body without its member) is never re-scored,
  so no deleted message comes back. Members that are not there are never added. With a
  concurrency limit their leases (lua/shared/leases.lua) move with them, or end with vt 0.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  KEYS[3] leases            <ns>:<qname>:leases
  ARGV[1] vt in seconds
  ARGV[2] the queue's wake channel ("": none)   ARGV[3] "1" when sharded (SPUBLISH)
  ARGV[4] "r" when receipts follow the ids, else ""
  ARGV[5..] message ids, then (with "r") one receipt per id, in the same order

  Returns -1 when the queue does not exist, else one integer per id, in order: 1 when that message
  exists (its visibility changed), 0 when it does not (or its receipt is not its own: left alone).
  When vt 0 freed a lease of a queue a receive was held at (`maxed`): { results, `~free:<ms>` }.
]]
local rcall = redis.call
local unpackAll = table.unpack or unpack
local queueSet, queueHash, leasesKey = KEYS[1], KEYS[2], KEYS[3]
local vt = tonumber(ARGV[1])
local last, withReceipts = #ARGV, ARGV[4] == "r"
if withReceipts then
  last = 4 + (#ARGV - 4) / 2
end

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "paused", "concurrency")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
local current
if withReceipts then
  local fields = {}
  for i = 5, last do
    fields[#fields + 1] = ARGV[i] .. ":rc"
  end
  current = rcall("HMGET", queueHash, unpackAll(fields))
end
-- serverNowMs() is lua/shared/now.lua, pauseOffset lua/shared/pause.lua: the loader puts both before this script.
local nowMs = serverNowMs()
local endMs = math.floor(nowMs + vt * 1000)
local score = string.format("%d", endMs + pauseOffset(settings[4]))
local refused = settings[5] and refusedCommand("zadd", "zrem", "pexpire", "hdel")
if refused then
  return refused
end
-- ZADD is the only write without a limit, so an ACL refusal of it comes before anything was written.
local results, changed = {}, {}
for i = 5, last do
  local id = ARGV[i]
  -- One command per line: a refusal names the command from the script's line number.
  local isMember = (not current or current[i - 4] == ARGV[i + last - 4]) and rcall("ZSCORE", queueSet, id)
  if isMember and rcall("HEXISTS", queueHash, id) == 1 then
    rcall("ZADD", queueSet, "XX", score, id)
    results[i - 4] = 1
    changed[#changed + 1] = id
  else
    results[i - 4] = 0
  end
end
if settings[5] and #changed > 0 then
  -- The leases end with vt 0, else move to the new end (XX: only messages that hold one).
  if vt == 0 then
    if rcall("ZREM", leasesKey, unpackAll(changed)) > 0 then
      local wake = announceFree(queueHash, ARGV[2], ARGV[3] == "1")
      if wake then
        return { results, wake }
      end
    end
  else
    local moves = { "XX", "CH" }
    for _, id in ipairs(changed) do
      moves[#moves + 1] = string.format("%d", endMs)
      moves[#moves + 1] = id
    end
    if rcall("ZADD", leasesKey, unpackAll(moves)) > 0 then
      extendLeaseTtl(leasesKey, endMs, nowMs)
    end
  end
end
return results
