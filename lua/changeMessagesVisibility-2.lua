--[[
  Makes several messages of one queue visible vt seconds from now, as changeMessageVisibility
  does for one (plus the hard pause's offset while the queue is hard-paused, lua/shared/pause.lua).
  A message counts only when it is both a member of the sorted set and has its body
  in the hash: a member left without its body (or a body without its member) is never re-scored,
  so no deleted message comes back. Members that are not there are never added.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] vt in seconds
  ARGV[2..] message ids

  Returns -1 when the queue does not exist, else one integer per id, in order: 1 when that message
  exists (its visibility changed), 0 when it does not.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local vt = tonumber(ARGV[1])

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "paused")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, pauseOffset lua/shared/pause.lua: the loader puts both before this script.
local nowMs = serverNowMs()
local score = string.format("%d", math.floor(nowMs + vt * 1000 + pauseOffset(settings[4])))
-- ZADD is the only write, so an ACL refusal of it comes before anything was written.
local results = {}
for i = 2, #ARGV do
  local id = ARGV[i]
  -- One command per line: a refusal names the command from the script's line number.
  local isMember = rcall("ZSCORE", queueSet, id)
  if isMember and rcall("HEXISTS", queueHash, id) == 1 then
    rcall("ZADD", queueSet, "XX", score, id)
    results[i - 1] = 1
  else
    results[i - 1] = 0
  end
end
return results
