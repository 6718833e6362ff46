--[[
  Deletes several messages at once. Like deleteMessage it does not check that the queue exists.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV    message ids

  Returns one integer per id, in order: 1 when that message existed, else 0.
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

local refused = aclRefusal("ZREM", queueSet, "HDEL", queueHash)
if refused then
  return refused
end
local results = {}
for i, id in ipairs(ARGV) do
  local removed = rcall("ZREM", queueSet, id)
  local fields = rcall("HDEL", queueHash, id, id .. ":rc", id .. ":fr", id .. ":dl")
  if removed == 1 and fields > 0 then
    results[i] = 1
  else
    results[i] = 0
  end
end
return results
