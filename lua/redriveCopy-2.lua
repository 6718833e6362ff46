--[[
  The first half of a redrive when the dead-letter queue and the target cannot share a script
  (different Redis Cluster slots): writes the messages into the target as new messages, visible
  now, with receive count and first-receive time reset, and their attributes (`<id>:at`). The caller deletes them from the
  dead-letter queue afterwards, so a crash in between leaves them in both, never in neither.
  Writing the same id twice overwrites, so repeating this step is harmless.

  KEYS[1] target sorted set  <ns>:<target>
  KEYS[2] target hash        <ns>:<target>:Q
  ARGV    message id, body, attributes (`<id>:at` JSON; "" for none), message id, body, attributes, ...

  Returns how many were written, or -1 when the target queue does not exist (nothing is written then).
]]
local rcall = redis.call
local targetSet, targetHash = KEYS[1], KEYS[2]

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

if rcall("HEXISTS", targetHash, "vt") == 0 then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()
local now = string.format("%d", nowMs)
local refused = refusedCommand("hincrby", "hset", "hdel")
if refused then
  return refused
end
local written = 0
for i = 1, #ARGV, 3 do
  local id, body, attributes = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if rcall("ZADD", targetSet, now, id) == 1 then
    rcall("HINCRBY", targetHash, "totalsent", 1)
  end
  -- What the target held of this id before goes, but for the attributes, which the HSET
  -- overwrites when the message has them.
  if attributes ~= "" then
    rcall("HSET", targetHash, id, body, id .. ":at", attributes)
    rcall("HDEL", targetHash, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":tp")
  else
    rcall("HSET", targetHash, id, body)
    rcall("HDEL", targetHash, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":tp", id .. ":at")
  end
  written = written + 1
end
return written
