--[[
  Receives the next due message and deletes it in the same step.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] "d" for the details telemetry needs; absent otherwise

  Returns { id, body, rc, fr }, {} when nothing is due, or -1 when the queue does not exist. With
  details: { id, body, rc, fr, now, score, tp }: the server's ms, the score the message had when
  taken (when it became visible) and its trace context `<id>:tp` (false: none).
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local details = ARGV[1] == "d"

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
local time = rcall("TIME")
local now = string.format("%d", tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))

local ids
if details then
  ids = rcall("ZRANGEBYSCORE", queueSet, "-inf", now, "WITHSCORES", "LIMIT", 0, 1)
else
  ids = rcall("ZRANGEBYSCORE", queueSet, "-inf", now, "LIMIT", 0, 1)
end
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
local carried = details and rcall("HGET", queueHash, id .. ":tp")
rcall("ZREM", queueSet, id)
rcall("HDEL", queueHash, id, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":tp")
if details then
  return { id, body, rc, fr, now, ids[2], carried }
end
return { id, body, rc, fr }
