--[[
  Moves messages from a dead-letter queue back to a queue as new messages: visible now, receive
  count and first-receive time reset, `why` removed, attributes (`<id>:at`) kept. All of them in
  one atomic step. It moves what
  the cross-slot redrive (redriveClaim-2, redriveCopy-2) moves, and counts the same: a message
  someone holds (received from the dead-letter queue, hidden) stays, and `totalsent` counts a
  message once, not again when it is already in the target (a cross-slot redrive cut short).

  KEYS[1] dead-letter sorted set  <ns>:<dlq>
  KEYS[2] dead-letter hash        <ns>:<dlq>:Q
  KEYS[3] target sorted set       <ns>:<target>
  KEYS[4] target hash             <ns>:<target>:Q
  ARGV    message ids

  Returns how many were moved (an id no longer in the dead-letter queue, or hidden there, is
  skipped), or -1 when the target queue does not exist (nothing is moved then).
]]
local rcall = redis.call
local deadSet, deadHash, targetSet, targetHash = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

if rcall("HEXISTS", targetHash, "vt") == 0 then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()
local now = string.format("%d", nowMs)
local refused = refusedCommand("hdel", "zadd", "hset", "hincrby")
if refused then
  return refused
end
local moved = 0
for _, id in ipairs(ARGV) do
  -- The attributes come in the read of the body: no command more for them.
  local message = rcall("HMGET", deadHash, id, id .. ":at")
  local body, attributes = message[1], message[2]
  local score = rcall("ZSCORE", deadSet, id)
  if body and score and tonumber(score) <= nowMs then
    rcall("ZREM", deadSet, id)
    rcall("HDEL", deadHash, id, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":tp", id .. ":at")
    if rcall("ZADD", targetSet, now, id) == 1 then
      rcall("HINCRBY", targetHash, "totalsent", 1)
    end
    -- What the target held of this id before (a cross-slot redrive cut short, an old client's
    -- leftovers) goes, but for the attributes, which the HSET overwrites when the message has them.
    if attributes then
      rcall("HSET", targetHash, id, body, id .. ":at", attributes)
      rcall("HDEL", targetHash, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":tp")
    else
      rcall("HSET", targetHash, id, body)
      rcall("HDEL", targetHash, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":tp", id .. ":at")
    end
    moved = moved + 1
  end
end
return moved
