--[[
  Put by the loader (lib/scripts/script-files.ts) before deleteMessage, after refused-command.lua,
  whose refusedCommand it calls. Its Redis calls touch only the two keys it is given.

  deleteOne(queueSet, queueHash, id): deletes one message as deleteIds (delete-ids.lua) deletes
  each of its list; returns 1 when it existed (in the set and the hash), else 0, or a NOPERM error
  reply, with nothing deleted, when the user may not run HDEL. A file of its own: deleteIds' table
  of results, and each function a script defines (a closure made on every call), cost a
  one-message delete about a tenth more instructions (callgrind).
]]
local rcall = redis.call

local function deleteOne(queueSet, queueHash, id)
  local refused = refusedCommand("hdel")
  if refused then
    return refused
  end
  local removed = rcall("ZREM", queueSet, id)
  local fields = rcall("HDEL", queueHash, id, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":tp")
  if removed == 1 and fields > 0 then
    return 1
  end
  return 0
end
