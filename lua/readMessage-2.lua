--[[
  One message with its whole body, for the dashboard's message browser. Nothing is written.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] the message id

  Returns { nowMs, msgs, id, body, size, score, rc, fr, why, at } as one entry of browseMessages
  followed by the message's attributes `<id>:at` (JSON, false: none), or -1 when the queue does
  not exist, -2 when the message is not in it.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local id = ARGV[1]

if rcall("HEXISTS", queueHash, "vt") == 0 then
  return -1
end
local score = rcall("ZSCORE", queueSet, id)
if not score then
  return -2
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()
local fields = rcall("HMGET", queueHash, id, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":at")
local body = fields[1] or ""
return { string.format("%d", nowMs), rcall("ZCARD", queueSet), id, body, #body, score, fields[2] or "0", fields[3] or false, fields[4] or false, fields[5] or false }
