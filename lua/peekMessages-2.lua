--[[
  The first messages of a queue in the order they will be received, each with when it is (or was)
  due and how often it was received, and the server's time: for the command line's `peek`, which
  shows each message's state. Nothing is written.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] how many (>= 1)

  Returns { nowMs, msgs, id1, body1, due1, rc1, why1, id2, ... }: the server's time (epoch ms) and
  the number of messages, then per message its id, body, score (when it becomes, or became,
  visible: epoch ms), receive count (0: never received) and the `<id>:dl` JSON of a dead letter
  (false when none). Returns -1 when the queue does not exist.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]

if rcall("HEXISTS", queueHash, "vt") == 0 then
  return -1
end
local time = rcall("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local reply = { string.format("%d", nowMs), rcall("ZCARD", queueSet) }
local last = string.format("%d", tonumber(ARGV[1]) - 1)
local entries = rcall("ZRANGE", queueSet, 0, last, "WITHSCORES")
for i = 1, #entries, 2 do
  local id = entries[i]
  local fields = rcall("HMGET", queueHash, id, id .. ":rc", id .. ":dl")
  -- A nil inside a Lua table would cut the reply short there: false travels as a nil reply.
  reply[#reply + 1] = id
  reply[#reply + 1] = fields[1] or false
  reply[#reply + 1] = entries[i + 1]
  reply[#reply + 1] = fields[2] or "0"
  reply[#reply + 1] = fields[3] or false
end
return reply
