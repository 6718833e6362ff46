--[[
  Deletes a queue with all its messages.

  KEYS[1] queue hash          <ns>:<qname>:Q
  KEYS[2] queue sorted set    <ns>:<qname>
  KEYS[3] queue registry set  <ns>:QUEUES
  ARGV[1] qname

  Returns 1, or -1 when neither key existed (the registry is left alone then).
]]
local rcall = redis.call
local queueHash, queueSet, registry = KEYS[1], KEYS[2], KEYS[3]

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

local refused = aclRefusal("DEL", queueHash, "DEL", queueSet, "SREM", registry)
if refused then
  return refused
end
if rcall("DEL", queueHash, queueSet) == 0 then
  return -1
end
rcall("SREM", registry, ARGV[1])
return 1
