--[[
  A page of a queue's messages in the order they will be received, for the dashboard's message
  browser and for peekMessages (the command line's `peek`): each with its score, receive count,
  first receive and dead-letter note, and its body (whole, or cut to a preview). Nothing is
  written: no score and no receive count changes.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] how many to pass over first (>= 0)   ARGV[2] how many (>= 1)
  ARGV[3] most bytes of each body to return (0: the whole body)
  ARGV[4] the most bytes of bodies the page reads (lib/operations/batch-bytes.ts)
  ARGV[5] "a": each message also gets its `<id>:at` JSON, as an eighth item, counted with its
          body against ARGV[4] (peekMessages, the dashboard's browser); absent: seven items

  The page stops before the message whose body would take the bytes read past ARGV[4] (the first
  message is always listed, however long): a page may hold fewer messages than asked for.

  Returns { nowMs, msgs, id1, body1, size1, score1, rc1, fr1, why1, id2, ... }: the server's time
  (epoch ms) and the number of messages, then per message its id, body (cut to ARGV[3] bytes),
  body length in bytes, score (epoch ms it becomes or became visible), receive count ("0": never),
  first receive (epoch ms, false: never), the `<id>:dl` JSON (false: none) and, with ARGV[5] "a",
  the `<id>:at` JSON (false: none). Returns -1 when the queue does not exist.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local offset, count, cutAt, maxBytes = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local withAttributes = ARGV[5] == "a"

if rcall("HEXISTS", queueHash, "vt") == 0 then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()

local reply = { string.format("%d", nowMs), rcall("ZCARD", queueSet) }
local last = string.format("%d", offset + count - 1)
local entries = rcall("ZRANGE", queueSet, ARGV[1], last, "WITHSCORES")
local bytes = 0
-- messageFields and appendMessage are lua/shared/browsed-message.lua, which the loader puts before this script.
for i = 1, #entries, 2 do
  local id = entries[i]
  local fields = messageFields(queueHash, id)
  -- With "a", a message's attributes count with its body, as in a receive's batch.
  bytes = bytes + #(fields[1] or "") + (withAttributes and #(fields[5] or "") or 0)
  if bytes > maxBytes and i > 1 then
    break
  end
  appendMessage(reply, id, fields, entries[i + 1], cutAt, withAttributes)
end
return reply
