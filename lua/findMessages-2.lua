--[[
  One chunk of the dashboard's search of a queue's bodies for a text: walks the sorted set with
  ZSCAN from a cursor, reads each message's body and keeps those that contain the text (a plain
  substring, case and all; not a pattern). It stops after the ZSCAN step (of about 100) at which it
  has looked at ARGV[2] messages, searched ARGV[3] bytes of bodies or found ARGV[6] matches, or at
  the end of the set, so that no call is long:
  the caller runs chunks one after the other. ZSCAN returns every message that stays in the queue
  for the whole search at least once, whatever is sent, received or deleted between chunks.
  Nothing is written: no score and no receive count changes.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] ZSCAN cursor ("0": from the start)
  ARGV[2] most messages to look at (>= 1)    ARGV[3] most bytes of bodies to search (>= 1)
  ARGV[4] most bytes of each matching body to return (0: the whole body)
  ARGV[5] the text to find                   ARGV[6] most matches (>= 1)

  Returns { nowMs, msgs, nextCursor, looked, id1, body1, size1, score1, rc1, fr1, why1, id2, ... }:
  the server's time (epoch ms), the number of messages, the cursor to go on from ("0": the whole
  set was walked), how many messages this chunk looked at, then each match as messagePage-2
  gives a message with its attributes (eight items). Returns -1 when the queue does not exist.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local most, budget, cutAt, text, wanted = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6])

if rcall("HEXISTS", queueHash, "vt") == 0 then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()

local cursor = ARGV[1]
local looked, searched = 0, 0
local matches = {}
local found = 0
repeat
  local step = rcall("ZSCAN", queueSet, cursor, "COUNT", string.format("%d", math.min(most - looked, 100)))
  cursor = step[1]
  local entries = step[2]
  -- messageFields and appendMessage are lua/shared/browsed-message.lua, which the loader puts before this script.
  for i = 1, #entries, 2 do
    local id = entries[i]
    local fields = messageFields(queueHash, id)
    local body = fields[1] or ""
    looked = looked + 1
    searched = searched + #body
    if string.find(body, text, 1, true) then
      found = found + 1
      appendMessage(matches, id, fields, entries[i + 1], cutAt, true)
    end
  end
until cursor == "0" or looked >= most or searched >= budget or found >= wanted

local reply = { string.format("%d", nowMs), rcall("ZCARD", queueSet), cursor, looked }
for i = 1, #matches do
  reply[#reply + 1] = matches[i]
end
return reply
