--[[
  Removes a queue's rate limit and its state (`ratelimit`, `rltat`). A block (`rlblock`, from
  rateLimitQueue) stays until it ends.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q

  Returns 1 when the queue had a limit, 0 when not, -1 when the queue does not exist.
]]
local rcall = redis.call
local queueHash = KEYS[2]

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "ratelimit")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
rcall("HDEL", queueHash, "ratelimit", "rltat")
return settings[4] and 1 or 0
