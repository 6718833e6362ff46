--[[
  Deletes several messages at once. Like deleteMessage it does not check that the queue exists.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV    message ids

  Returns one integer per id, in order: 1 when that message existed, else 0.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

local refused = refusedCommand("hdel")
if refused then
  return refused
end
local results = {}
for i, id in ipairs(ARGV) do
  local removed = rcall("ZREM", queueSet, id)
  local fields = rcall("HDEL", queueHash, id, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":tp")
  if removed == 1 and fields > 0 then
    results[i] = 1
  else
    results[i] = 0
  end
end
return results
