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
  ARGV[7] the message's attributes `<id>:at` as the source holds them (JSON); "" or absent: none

  Returns 1.

  A dead-letter queue with a `retention` and no `expireto` is a capped audit of failures
  (docs/retention.md): this script also deletes the expired ones among its first DLQ_TRIM members
  by rank (age from the original send: the id's time), and counts them in its `totalexpired`, so
  a dead-letter queue nobody reads stays bounded at no extra command.
]]
local rcall = redis.call
local deadSet, deadHash = KEYS[1], KEYS[2]
local id, body, why = ARGV[1], ARGV[2], ARGV[3]
local unpackAll = table.unpack or unpack

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs, seconds, micros = serverNowMs()
local now = string.format("%d", nowMs)

-- expiredHead(deadSet, retention, nowUs) is lua/shared/dead-letter-expiry.lua, which the loader
-- puts before this script.

local dead = rcall("HMGET", deadHash, "vt", "retention", "expireto")
local trimming = expiredHead(deadSet, dead[3] and 0 or tonumber(dead[2] or "0") or 0, seconds * 1000000 + micros)
local refused = refusedCommand("zadd", "hset", "hincrby") or (#trimming > 0 and refusedCommand("zrem", "hdel"))
if refused then
  return refused
end
if not dead[1] then
  local created = string.format("%d", seconds)
  rcall("HSET", deadHash, "vt", ARGV[4], "delay", ARGV[5], "maxsize", ARGV[6], "created", created, "modified", created)
end
if rcall("ZADD", deadSet, now, id) == 1 then
  rcall("HINCRBY", deadHash, "totalsent", 1)
end
local note = string.sub(why, 1, -2) .. ',"at":' .. now .. "}"
if ARGV[7] and ARGV[7] ~= "" then
  rcall("HSET", deadHash, id, body, id .. ":dl", note, id .. ":at", ARGV[7])
else
  rcall("HSET", deadHash, id, body, id .. ":dl", note)
end
-- The expired head found above goes, with every field of theirs, counted.
if #trimming > 0 then
  local fields = {}
  for _, member in ipairs(trimming) do
    fields[#fields + 1] = member
    fields[#fields + 1] = member .. ":rc"
    fields[#fields + 1] = member .. ":fr"
    fields[#fields + 1] = member .. ":dl"
    fields[#fields + 1] = member .. ":tp"
    fields[#fields + 1] = member .. ":at"
  end
  rcall("ZREM", deadSet, unpackAll(trimming))
  rcall("HDEL", deadHash, unpackAll(fields))
  rcall("HINCRBY", deadHash, "totalexpired", #trimming)
end
return 1
