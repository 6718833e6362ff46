--[[
  Lists the first messages of a queue, in visibility order, without receiving them: for looking
  into a dead-letter queue. Nothing is written.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] how many (>= 1)   ARGV[2] how many to pass over first (>= 0)
  ARGV[3] the most bytes of bodies it reads (lib/operations/batch-bytes.ts)

  Returns { id1, body1, why1, at1, id2, ... } (why is the `<id>:dl` JSON, at the message's
  attributes `<id>:at`, each nil when absent), or -1 when the queue does not exist. It stops before the message whose body would take the bytes read past ARGV[3]
  (the first message is always listed) and then ends the reply with one more element, 1, so that
  a redrive knows more messages follow.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]

if rcall("HEXISTS", queueHash, "vt") == 0 then
  return -1
end
local reply = {}
local first = tonumber(ARGV[2])
local last = string.format("%d", first + tonumber(ARGV[1]) - 1)
local maxBytes, bytes = tonumber(ARGV[3]), 0
for i, id in ipairs(rcall("ZRANGE", queueSet, ARGV[2], last)) do
  local fields = rcall("HMGET", queueHash, id, id .. ":dl", id .. ":at")
  -- A message's attributes count with its body, as in a receive's batch.
  bytes = bytes + #(fields[1] or "") + #(fields[3] or "")
  if bytes > maxBytes and i > 1 then
    reply[#reply + 1] = 1
    break
  end
  reply[#reply + 1] = id
  reply[#reply + 1] = fields[1]
  reply[#reply + 1] = fields[2]
  reply[#reply + 1] = fields[3]
end
return reply
