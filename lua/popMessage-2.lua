--[[
  Receives the next due message and deletes it in the same step.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q

  Returns { id, body, rc, fr }, {} when nothing is due, or -1 when the queue does not exist.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
local time = rcall("TIME")
local now = string.format("%d", tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))

local ids = rcall("ZRANGEBYSCORE", queueSet, "-inf", now, "LIMIT", 0, 1)
if #ids == 0 then
  return {}
end
local id = ids[1]
local refused = refusedCommand("hget", "zrem", "hdel")
if refused then
  return refused
end
rcall("HINCRBY", queueHash, "totalrecv", 1)
local body = rcall("HGET", queueHash, id)
local rc = rcall("HINCRBY", queueHash, id .. ":rc", 1)
local fr = now
if rc ~= 1 then
  fr = rcall("HGET", queueHash, id .. ":fr")
end
rcall("ZREM", queueSet, id)
rcall("HDEL", queueHash, id, id .. ":rc", id .. ":fr", id .. ":dl")
return { id, body, rc, fr }
