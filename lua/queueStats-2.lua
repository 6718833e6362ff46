--[[
  A read-only look at a queue for operators (the command line's `stats`): its settings and
  counters, and where its messages are. Nothing is written.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] most hidden messages to look at when telling in-flight from delayed ones (>= 0)

  Returns { {vt, delay, maxsize, totalrecv, totalsent, created, modified}, msgs, visible, inFlight,
  delayed, looked, nextDueMs, waitingMs }, or -1 when the queue does not exist.
  visible: due now (score <= now, in ms). A hidden message is in flight when it has been received
  (it has an `<id>:rc` field: being handled, or waiting for a retry), delayed when it never was.
  looked: how many hidden messages were looked at; when fewer than all, inFlight and delayed count
  only the earliest ones. nextDueMs: until the earliest hidden message is visible (-1: none hidden).
  waitingMs: how long the earliest visible message has been due (-1: none visible).
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local lookAtMost = tonumber(ARGV[1])

local fields = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "totalrecv", "totalsent", "created", "modified")
if not fields[1] then
  return -1
end
local time = rcall("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local now = string.format("%d", nowMs)

local msgs = rcall("ZCARD", queueSet)
local visible = rcall("ZCOUNT", queueSet, "-inf", now)
local inFlight, delayed = 0, 0
local hidden = rcall("ZRANGEBYSCORE", queueSet, "(" .. now, "+inf", "WITHSCORES", "LIMIT", 0, lookAtMost)
for i = 1, #hidden, 2 do
  if rcall("HEXISTS", queueHash, hidden[i] .. ":rc") == 1 then
    inFlight = inFlight + 1
  else
    delayed = delayed + 1
  end
end

local nextDueMs = -1
if #hidden > 0 then
  nextDueMs = tonumber(hidden[2]) - nowMs
elseif msgs > visible then
  local firstHidden = rcall("ZRANGEBYSCORE", queueSet, "(" .. now, "+inf", "WITHSCORES", "LIMIT", 0, 1)
  nextDueMs = tonumber(firstHidden[2]) - nowMs
end
local waitingMs = -1
if visible > 0 then
  local first = rcall("ZRANGE", queueSet, 0, 0, "WITHSCORES")
  waitingMs = nowMs - tonumber(first[2])
end
return { fields, msgs, visible, inFlight, delayed, math.floor(#hidden / 2), nextDueMs, waitingMs }
