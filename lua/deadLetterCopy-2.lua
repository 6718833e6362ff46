--[[
  The first half of a dead-letter move when the two queues cannot share a script (different
  Redis Cluster slots): writes the message into the dead-letter queue. The caller deletes it from
  the source afterwards, so a crash in between leaves it in both queues, never in neither. Writing
  the same id twice overwrites, so repeating this step is harmless. The registry may live in
  another slot, so the caller lists the dead-letter queue's name first.

  KEYS[1] dead-letter sorted set  <ns>:<dlq>
  KEYS[2] dead-letter hash        <ns>:<dlq>:Q
  ARGV[1] message id   ARGV[2] body
  ARGV[3] why it stopped, a JSON object; the script adds "at" (epoch ms, server clock)
  ARGV[4] vt   ARGV[5] delay   ARGV[6] maxsize: the settings for a queue created on demand

  Returns 1.
]]
local rcall = redis.call
local deadSet, deadHash = KEYS[1], KEYS[2]
local id, body, why = ARGV[1], ARGV[2], ARGV[3]

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

local time = rcall("TIME")
local now = string.format("%d", tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))

local refused = refusedCommand("zadd", "hset", "hincrby")
if refused then
  return refused
end
if rcall("HEXISTS", deadHash, "vt") == 0 then
  rcall("HSET", deadHash, "vt", ARGV[4], "delay", ARGV[5], "maxsize", ARGV[6], "created", time[1], "modified", time[1])
end
if rcall("ZADD", deadSet, now, id) == 1 then
  rcall("HINCRBY", deadHash, "totalsent", 1)
end
rcall("HSET", deadHash, id, body, id .. ":dl", string.sub(why, 1, -2) .. ',"at":' .. now .. "}")
return 1
