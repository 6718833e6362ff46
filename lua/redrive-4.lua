--[[
  Moves messages from a dead-letter queue back to a queue as new messages: visible now, receive
  count and first-receive time reset, `why` removed. All of them in one atomic step.

  KEYS[1] dead-letter sorted set  <ns>:<dlq>
  KEYS[2] dead-letter hash        <ns>:<dlq>:Q
  KEYS[3] target sorted set       <ns>:<target>
  KEYS[4] target hash             <ns>:<target>:Q
  ARGV    message ids

  Returns how many were moved (an id no longer in the dead-letter queue is skipped), or -1 when
  the target queue does not exist (nothing is moved then).
]]
local rcall = redis.call
local deadSet, deadHash, targetSet, targetHash = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

-- Redis checks each command of a script only when it is called: one refused halfway would leave
-- the writes before it. So, on Redis 7+, what may run once this script writes is checked first.
local function aclRefusal(...)
  if not redis.acl_check_cmd then
    return nil
  end
  local checks = { ... }
  for i = 1, #checks, 2 do
    if not redis.acl_check_cmd(checks[i], checks[i + 1]) then
      local what = "access one of the keys used as arguments"
      if not redis.acl_check_cmd(checks[i]) then
        what = "run the '" .. string.lower(checks[i]) .. "' command"
      end
      return redis.error_reply("NOPERM this user has no permissions to " .. what)
    end
  end
end

if rcall("HEXISTS", targetHash, "vt") == 0 then
  return -1
end
local time = rcall("TIME")
local now = string.format("%d", tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
local refused = aclRefusal("ZREM", deadSet, "HDEL", deadHash, "ZADD", targetSet, "HSET", targetHash, "HDEL", targetHash,
  "HINCRBY", targetHash)
if refused then
  return refused
end
local moved = 0
for _, id in ipairs(ARGV) do
  local body = rcall("HGET", deadHash, id)
  if body and rcall("ZREM", deadSet, id) == 1 then
    rcall("HDEL", deadHash, id, id .. ":rc", id .. ":fr", id .. ":dl")
    rcall("ZADD", targetSet, now, id)
    rcall("HSET", targetHash, id, body)
    rcall("HDEL", targetHash, id .. ":rc", id .. ":fr", id .. ":dl")
    rcall("HINCRBY", targetHash, "totalsent", 1)
    moved = moved + 1
  end
end
return moved
