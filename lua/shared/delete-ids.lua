--[[
  Put by the loader (lib/scripts/script-files.ts) before each script that deletes a list of
  messages by id (deleteMessages, deleteAndReceive), after refused-command.lua, whose
  refusedCommand it calls. Its Redis calls touch only the two keys it is given, which each script
  takes from its KEYS.

  deleteIds(queueSet, queueHash, ids, first, last): deletes the messages ids[first] to ids[last],
  each with every field of its own (`<id>`, `<id>:rc`, `<id>:fr`, its dead-letter note `<id>:dl`
  and trace context `<id>:tp`), as rsmq 0.12.4's delete removes its three. Returns one integer per
  id, in order: 1 when that message existed (in the set and the hash), else 0; or a NOPERM error
  reply, with nothing deleted, when the user may not run HDEL (its ZREM would otherwise be done alone).
  delete-one.lua deletes one message the same way, without the table of results.
]]
local rcall = redis.call

local function deleteIds(queueSet, queueHash, ids, first, last)
  local refused = refusedCommand("hdel")
  if refused then
    return refused
  end
  local results = {}
  for i = first, last do
    local id = ids[i]
    local removed = rcall("ZREM", queueSet, id)
    local fields = rcall("HDEL", queueHash, id, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":tp")
    if removed == 1 and fields > 0 then
      results[#results + 1] = 1
    else
      results[#results + 1] = 0
    end
  end
  return results
end
