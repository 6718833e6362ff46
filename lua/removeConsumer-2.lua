--[[
  A Worker's stop: takes its heartbeat entry out of the queue's hash (lua/lookAndBeat-2.lua says
  what the entries are), so listConsumers stops listing it at once rather than when it expires.

  KEYS[1] queue sorted set  <ns>:<qname>  (unused: the scripts of a queue all declare both keys)
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] the Worker's id

  Removes `~w:<workerId>` and the id from `consumers` (the field goes with the last id). Returns 1
  when the entry or the id was there, else 0, having written nothing (a queue deleted meanwhile
  included: nothing is created).
]]
local rcall = redis.call
local queueHash = KEYS[2]
local workerId = ARGV[1]
local field = "~w:" .. workerId

local found = rcall("HMGET", queueHash, field, "consumers")
local kept, listed = {}, false
for id in string.gmatch(found[2] or "", "%S+") do
  if id == workerId then
    listed = true
  else
    kept[#kept + 1] = id
  end
end
if not (found[1] or listed) then
  return 0
end

-- refusedCommand(...) is lua/shared/refused-command.lua: checked before the first write.
local refused = refusedCommand("hdel", "hset")
if refused then
  return refused
end
if not listed then
  rcall("HDEL", queueHash, field)
elseif #kept == 0 then
  rcall("HDEL", queueHash, field, "consumers")
else
  rcall("HDEL", queueHash, field)
  rcall("HSET", queueHash, "consumers", table.concat(kept, " "))
end
return 1
