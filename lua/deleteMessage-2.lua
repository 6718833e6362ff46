--[[
  Deletes a message (with its dead-letter note `<id>:dl`, if any). Like rsmq 0.12.4 it does not
  check that the queue exists.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] message id

  Returns 1 when the message existed (in the set and the hash), else 0.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local id = ARGV[1]

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
local removed = rcall("ZREM", queueSet, id)
local fields = rcall("HDEL", queueHash, id, id .. ":rc", id .. ":fr", id .. ":dl")
if removed == 1 and fields > 0 then
  return 1
end
return 0
