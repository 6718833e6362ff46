--[[
  Receives the next due message and deletes it in the same step.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q

  Returns { id, body, rc, fr }, {} when nothing is due, or -1 when the queue does not exist.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]

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
local refused = aclRefusal("HINCRBY", queueHash, "HGET", queueHash, "ZREM", queueSet, "HDEL", queueHash)
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
