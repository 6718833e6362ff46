--[[
  Why the first messages of a dead-letter queue stopped: their `<id>:dl` notes, without their
  bodies, for the dashboard's reasons histogram. Nothing is written.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] most messages to look at (>= 1)

  Returns { msgs, why1, why2, ... }: the number of messages, then the `<id>:dl` JSON of each of the
  first ARGV[1] in receive order (false for a message without one), or -1 when the queue does not
  exist.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]

if rcall("HEXISTS", queueHash, "vt") == 0 then
  return -1
end
local reply = { rcall("ZCARD", queueSet) }
for _, id in ipairs(rcall("ZRANGE", queueSet, 0, string.format("%d", tonumber(ARGV[1]) - 1))) do
  reply[#reply + 1] = rcall("HGET", queueHash, id .. ":dl") or false
end
return reply
