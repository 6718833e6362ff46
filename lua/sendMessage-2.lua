--[[
  Sends a message. The id is the server's microsecond TIME in base36 (10 chars) followed by the
  22 random characters the client drew, as rsmq 0.12.4 builds it.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] 22 random chars [A-Za-z0-9]
  ARGV[2] delay in seconds, or "" for the queue's default
  ARGV[3] message body
  ARGV[4] body length in UTF-16 code units (what rsmq compares with maxsize); absent when it is at
          most 1024, the smallest maxsize, so never too long
  ARGV[5] realtime channel <ns>:rt:<qname>; absent or "" when realtime is off
  ARGV[6] "sharded" to publish with SPUBLISH (Redis Cluster), falling back to PUBLISH on a server
          without it; anything else (or absent) publishes with PUBLISH
  ARGV[7] the trace context to carry (telemetry): stored as `<id>:tp`, a field rsmq 0.12.4 never
          reads; absent or "" for none
  ARGV[8] priority 0 to 9 (lua/shared/message-score.lua); absent or "" for 0
  Each argument costs the server a string to build, so the client leaves off trailing ones it
  does not need.

  Returns the id, -1 when the queue does not exist, -3 when the message is longer than maxsize;
  { id, error, command } when the message was stored but a command of its realtime notification
  (ZCARD, then PUBLISH or SPUBLISH) was refused.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local randomPart, delayArg, body = ARGV[1], ARGV[2], ARGV[3]
local length, channel, sharded = tonumber(ARGV[4] or "0"), ARGV[5] or "", ARGV[6] == "sharded"
local carried = ARGV[7] or ""
local priority = tonumber(ARGV[8] or "") or 0

-- refusedCommand(...) is lua/shared/refused-command.lua, and messageScore(...) is
-- lua/shared/message-score.lua, which the loader puts before this script.

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize")
if not (settings[1] and settings[2] and settings[3]) then
  return -1
end
local maxsize = tonumber(settings[3])
if maxsize ~= -1 and length > maxsize then
  return -3
end
local delay = tonumber(settings[2])
if delayArg ~= "" then
  delay = tonumber(delayArg)
end

local time = rcall("TIME")
local seconds, micros = tonumber(time[1]), tonumber(time[2])
local nowMs = seconds * 1000 + math.floor(micros / 1000)

-- Below 2^53, so exact both as a Lua 5.1 double and as a Lua 5.4 integer.
local stamp = seconds * 1000000 + micros
-- Lower-case base36, most significant digit first: the digits are collected as character codes
-- and made into one string (a string per digit, concatenated, costs the server more than the
-- rest of the script). 10 digits until 2085; the loop takes as many as the stamp needs.
-- (unpack is table.unpack on Lua 5.4.)
local codes, first = {}, 17
repeat
  local d = stamp % 36
  first = first - 1
  codes[first] = d < 10 and 48 + d or 87 + d
  stamp = math.floor(stamp / 36)
until stamp == 0
local id = string.char((table.unpack or unpack)(codes, first, 16)) .. randomPart

local refused = refusedCommand("hset", "hincrby")
if refused then
  return refused
end
rcall("ZADD", queueSet, messageScore(nowMs, delay, priority), id)
if carried == "" then
  rcall("HSET", queueHash, id, body)
else
  rcall("HSET", queueHash, id, body, id .. ":tp", carried)
end
rcall("HINCRBY", queueHash, "totalsent", 1)
if channel == "" then
  return id
end
-- From here on the message is stored: a refused notification (an ACL user without the channel)
-- must not fail the send, so it is called with pcall and reported beside the id.
local count = redis.pcall("ZCARD", queueSet)
if type(count) == "table" and count.err then
  return { id, count.err, "ZCARD" }
end
local published, command
if sharded then
  command = "SPUBLISH"
  published = redis.pcall("SPUBLISH", channel, count)
  -- Before Redis 7 there is no SPUBLISH: PUBLISH reaches the same subscribers there.
  if type(published) == "table" and published.err and string.find(published.err, "nknown") then
    command = "PUBLISH"
    published = redis.pcall("PUBLISH", channel, count)
  end
else
  command = "PUBLISH"
  published = redis.pcall("PUBLISH", channel, count)
end
if type(published) == "table" and published.err then
  return { id, published.err, command }
end
return id
