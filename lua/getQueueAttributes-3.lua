--[[
  Reads a queue's attributes and message counts.

  KEYS[1] queue hash        <ns>:<qname>:Q
  KEYS[2] queue sorted set  <ns>:<qname>
  KEYS[3] leases            <ns>:<qname>:leases (lua/shared/leases.lua; read only with a limit)

  Returns { {vt, delay, maxsize, totalrecv, totalsent, created, modified, retention, expireto,
  totalexpired, dedupwindow, paused, ratelimit, rlblock, concurrency}, msgs, hiddenmsgs, nowMs,
  leased } (missing fields are nil; leased, the leases still running, only with a concurrency
  limit), or -1 when the queue does not exist. A message is hidden while its score is later than
  now, in milliseconds; nowMs (the server's) says whether a pause's `until` and a block have passed.
]]
local rcall = redis.call
local queueHash, queueSet = KEYS[1], KEYS[2]

local fields = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "totalrecv", "totalsent", "created", "modified",
  "retention", "expireto", "totalexpired", "dedupwindow", "paused", "ratelimit", "rlblock", "concurrency")
if not fields[1] then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()
local msgs = rcall("ZCARD", queueSet)
local hidden = rcall("ZCOUNT", queueSet, "(" .. string.format("%d", nowMs), "+inf")
if fields[15] then
  return { fields, msgs, hidden, nowMs, rcall("ZCOUNT", KEYS[3], "(" .. string.format("%d", nowMs), "+inf") }
end
return { fields, msgs, hidden, nowMs }
