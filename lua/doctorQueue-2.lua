--[[
  The doctor's look at one queue, without writing anything: how many fields its hash holds, and
  the values of the fields asked for (its settings), to tell a queue from a leftover hash and
  settings an rsmq 0.12.4 client would refuse or misread.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV    the fields to read (vt, delay, maxsize, retention, expireto)

  Returns { fieldsInHash, membersInSet, value1, value2, ... }: each value false when absent.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]

local reply = { rcall("HLEN", queueHash), rcall("ZCARD", queueSet) }
if #ARGV > 0 then
  local values = rcall("HMGET", queueHash, (table.unpack or unpack)(ARGV))
  for i = 1, #ARGV do
    reply[#reply + 1] = values[i]
  end
end
return reply
