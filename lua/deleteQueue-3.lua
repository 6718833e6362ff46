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

-- A command refused halfway would leave the writes before it, so on Redis 7+ the ones this script
-- may run after its first write are checked first. No keys: Redis checks the declared KEYS on arrival.
local function refusedCommand(...)
  if redis.acl_check_cmd then
    for i = 1, select("#", ...) do
      local command = select(i, ...)
      if not redis.acl_check_cmd(command) then
        return redis.error_reply("NOPERM this user has no permissions to run the '" .. command .. "' command")
      end
    end
  end
end

local refused = refusedCommand("srem")
if refused then
  return refused
end
if rcall("DEL", queueHash, queueSet) == 0 then
  return -1
end
rcall("SREM", registry, ARGV[1])
return 1
