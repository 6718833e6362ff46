--[[
  Receives up to `count` due messages, hiding each for vt seconds, in score order (FIFO among
  equally-due messages). When fewer than `count` were due it also tells when the next message
  will be: the earliest score in the set covers delayed, retried and in-flight messages alike.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] vt in seconds, or "" for the queue's default
  ARGV[2] count (>= 1)

  Returns { nextDue, vt, id1, body1, rc1, fr1, id2, ... } where nextDue is the milliseconds from
  now until the earliest message is visible (0 or more), -1 for an empty queue, or -2 when `count`
  messages were received and it was not looked up, and vt is the visibility timeout applied, in
  seconds. Returns -1 when the queue does not exist.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local vtArg, count = ARGV[1], tonumber(ARGV[2])

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
local vt = tonumber(settings[1])
if vtArg ~= "" then
  vt = tonumber(vtArg)
end

local time = rcall("TIME")
local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local now = string.format("%d", nowMs)
local hiddenUntil = string.format("%d", math.floor(nowMs + vt * 1000))

local reply = { -2, vt }
local ids = rcall("ZRANGEBYSCORE", queueSet, "-inf", now, "LIMIT", 0, count)
if #ids > 0 then
  local refused = refusedCommand("hincrby", "hget", "hset", "zrange")
  if refused then
    return refused
  end
end
for _, id in ipairs(ids) do
  rcall("ZADD", queueSet, hiddenUntil, id)
  rcall("HINCRBY", queueHash, "totalrecv", 1)
  local body = rcall("HGET", queueHash, id)
  local rc = rcall("HINCRBY", queueHash, id .. ":rc", 1)
  local fr = now
  if rc == 1 then
    rcall("HSET", queueHash, id .. ":fr", now)
  else
    fr = rcall("HGET", queueHash, id .. ":fr")
  end
  reply[#reply + 1] = id
  reply[#reply + 1] = body
  reply[#reply + 1] = rc
  reply[#reply + 1] = fr
end

if #ids < count then
  local first = rcall("ZRANGE", queueSet, 0, 0, "WITHSCORES")
  if #first == 0 then
    reply[1] = -1
  else
    reply[1] = math.max(0, tonumber(first[2]) - nowMs)
  end
end
return reply
