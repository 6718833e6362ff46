--[[
  Reads a queue's attributes and message counts.

  KEYS[1] queue hash        <ns>:<qname>:Q
  KEYS[2] queue sorted set  <ns>:<qname>

  Returns { {vt, delay, maxsize, totalrecv, totalsent, created, modified, retention, expireto,
  totalexpired, dedupwindow, paused, ratelimit, rlblock}, msgs, hiddenmsgs, nowMs } (missing fields
  are nil), or -1 when the queue does not exist. A message is hidden while its score is later than
  now, in milliseconds; nowMs (the server's) says whether a pause's `until` and a block have passed.
]]
local rcall = redis.call
local queueHash, queueSet = KEYS[1], KEYS[2]

local fields = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "totalrecv", "totalsent", "created", "modified",
  "retention", "expireto", "totalexpired", "dedupwindow", "paused", "ratelimit", "rlblock")
if not fields[1] then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()
local msgs = rcall("ZCARD", queueSet)
local hidden = rcall("ZCOUNT", queueSet, "(" .. string.format("%d", nowMs), "+inf")
return { fields, msgs, hidden, nowMs }
