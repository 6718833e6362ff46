--[[
  Blocks a queue's receives for a while (a downstream API answered 429): `rlblock` becomes the
  later of the block in force and now + ms, on the server's clock. rsmq-next's receives take
  nothing until then, whatever the queue's rate limit; rsmq 0.12.4 consumers do not read it.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] ms (a whole number from 1 up)

  Returns 1, or -1 when the queue does not exist (nothing written).
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "rlblock")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()
local block = math.max(tonumber(settings[4]) or 0, nowMs + tonumber(ARGV[1]))
rcall("HSET", queueHash, "rlblock", string.format("%d", block))
return 1
