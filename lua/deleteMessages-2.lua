--[[
  Deletes several messages at once. Like deleteMessage it does not check that the queue exists.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV    message ids

  Returns one integer per id, in order: 1 when that message existed, else 0.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]

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

local refused = refusedCommand("hdel")
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
