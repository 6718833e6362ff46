--[[
  Changes some of vt, delay, maxsize, retention, expireto and dedupwindow, stamps `modified`, and returns the
  new attributes. A value of "" removes the field (a retention of 0, an expireto of ""): a queue
  that stops using retention goes back to rsmq 0.12.4's fields exactly.

  KEYS[1] queue hash        <ns>:<qname>:Q
  KEYS[2] queue sorted set  <ns>:<qname>
  ARGV    field, value pairs, each field one of vt, delay, maxsize, retention, expireto, dedupwindow (already
          validated)

  Returns what getQueueAttributes returns (lua/getQueueAttributes-3.lua), or -1 when the queue does not exist (nothing is written).
]]
local rcall = redis.call
local queueHash, queueSet = KEYS[1], KEYS[2]

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs, seconds = serverNowMs()
local removes = false
for i = 2, #ARGV, 2 do
  if ARGV[i] == "" then
    removes = true
  end
end
local refused = refusedCommand("zcard", "zcount") or (removes and refusedCommand("hdel"))
if refused then
  return refused
end
rcall("HSET", queueHash, "modified", string.format("%d", seconds))
for i = 1, #ARGV, 2 do
  if ARGV[i + 1] == "" then
    rcall("HDEL", queueHash, ARGV[i])
  else
    rcall("HSET", queueHash, ARGV[i], ARGV[i + 1])
  end
end

local fields = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "totalrecv", "totalsent", "created", "modified",
  "retention", "expireto", "totalexpired", "dedupwindow", "paused", "ratelimit", "rlblock")
local msgs = rcall("ZCARD", queueSet)
local hidden = rcall("ZCOUNT", queueSet, "(" .. string.format("%d", nowMs), "+inf")
return { fields, msgs, hidden, nowMs }
