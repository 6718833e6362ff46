--[[
  Changes some of vt, delay and maxsize, stamps `modified`, and returns the new attributes.

  KEYS[1] queue hash        <ns>:<qname>:Q
  KEYS[2] queue sorted set  <ns>:<qname>
  ARGV    field, value pairs, each field one of vt, delay, maxsize (already validated)

  Returns what getQueueAttributes returns, or -1 when the queue does not exist (nothing is written).
]]
local rcall = redis.call
local queueHash, queueSet = KEYS[1], KEYS[2]

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
local time = rcall("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local refused = refusedCommand("zcard", "zcount")
if refused then
  return refused
end
rcall("HSET", queueHash, "modified", time[1])
for i = 1, #ARGV, 2 do
  rcall("HSET", queueHash, ARGV[i], ARGV[i + 1])
end

local fields = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "totalrecv", "totalsent", "created", "modified")
local msgs = rcall("ZCARD", queueSet)
local hidden = rcall("ZCOUNT", queueSet, "(" .. string.format("%d", nowMs), "+inf")
return { fields, msgs, hidden }
