--[[
  Moves a message that stopped being retried to a dead-letter queue, atomically. The body, id and
  attributes (`<id>:at`, as sent, with a schedule's `schedule` and `slot`) are kept; why it stopped goes in the dead-letter queue's hash as `<id>:dl` (JSON), which rsmq
  clients never read, and which deleting the message removes. The dead-letter queue is created on
  demand with the source queue's vt, delay and maxsize. There it is a new message: visible now,
  no receives yet. `totalsent` counts it once: a message already there (a two-step move repeated
  after a crash) is overwritten, not counted again, as deadLetterCopy-2.lua does.

  KEYS[1] source sorted set       <ns>:<source>
  KEYS[2] source hash             <ns>:<source>:Q
  KEYS[3] dead-letter sorted set  <ns>:<dlq>
  KEYS[4] dead-letter hash        <ns>:<dlq>:Q
  KEYS[5] queue registry set      <ns>:QUEUES
  ARGV[1] message id   ARGV[2] dead-letter queue name
  ARGV[3] why it stopped, a JSON object; the script adds "at" (epoch ms, server clock)
  ARGV[4] vt   ARGV[5] delay   ARGV[6] maxsize: rsmq's defaults, for a setting the source lacks
  ARGV[7] "x" when the message expired (docs/retention.md): the source's `totalexpired` counts
          it; absent otherwise

  Returns 1 when moved, 0 when the message was no longer in the source queue.

  A dead-letter queue with a `retention` and no `expireto` is a capped audit of failures
  (docs/retention.md): this script also deletes the expired ones among its first DLQ_TRIM members
  by rank (age from the original send: the id's time), and counts them in its `totalexpired`, so
  a dead-letter queue nobody reads stays bounded at no extra command.
]]
local rcall = redis.call
local sourceSet, sourceHash, deadSet, deadHash, registry = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local id, deadName, why = ARGV[1], ARGV[2], ARGV[3]
local defaultVt, defaultDelay, defaultMaxsize = ARGV[4], ARGV[5], ARGV[6]
local unpackAll = table.unpack or unpack

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

-- The attributes come in the read of the body: no command more for them.
local message = rcall("HMGET", sourceHash, id, id .. ":at")
local body, attributes = message[1], message[2]
if not body or not rcall("ZSCORE", sourceSet, id) then
  return 0
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs, seconds, micros = serverNowMs()
local now = string.format("%d", nowMs)

-- expiredHead(deadSet, retention, nowUs) is lua/shared/dead-letter-expiry.lua, which the loader
-- puts before this script.

local dead = rcall("HMGET", deadHash, "vt", "retention", "expireto")
local creating = not dead[1]
local trimming = expiredHead(deadSet, dead[3] and 0 or tonumber(dead[2] or "0") or 0, seconds * 1000000 + micros)
-- The registry is written only when the dead-letter queue is created: a worker moving messages
-- into an existing one needs no SADD.
local refused = refusedCommand("zadd", "hset", "hincrby", "zrem", "hdel") or (creating and refusedCommand("sadd"))
if refused then
  return refused
end
if creating then
  local created = string.format("%d", seconds)
  local settings = rcall("HMGET", sourceHash, "vt", "delay", "maxsize")
  rcall("HSET", deadHash, "vt", settings[1] or defaultVt, "delay", settings[2] or defaultDelay,
    "maxsize", settings[3] or defaultMaxsize, "created", created, "modified", created)
  rcall("SADD", registry, deadName)
end

if rcall("ZADD", deadSet, now, id) == 1 then
  rcall("HINCRBY", deadHash, "totalsent", 1)
end
local note = string.sub(why, 1, -2) .. ',"at":' .. now .. "}"
if attributes then
  rcall("HSET", deadHash, id, body, id .. ":dl", note, id .. ":at", attributes)
else
  rcall("HSET", deadHash, id, body, id .. ":dl", note)
end

rcall("ZREM", sourceSet, id)
rcall("HDEL", sourceHash, id, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":tp", id .. ":at")
if ARGV[7] == "x" then
  rcall("HINCRBY", sourceHash, "totalexpired", 1)
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
