--[[
  Put by the loader (lib/scripts/script-files.ts) before each script that deletes a list of
  messages by id (deleteMessages, deleteAndReceive), after refused-command.lua, whose
  refusedCommand it calls. Its Redis calls touch only the three keys it is given, which each
  script takes from its KEYS.

  deleteIds(queueSet, queueHash, leasesKey, ids, first, last, rcs): deletes the messages ids[first]
  to ids[last], each with every field of its own (`<id>`, `<id>:rc`, `<id>:fr`, its dead-letter
  note `<id>:dl`, trace context `<id>:tp` and attributes `<id>:at`), as rsmq 0.12.4's delete
  removes its three, and its
  concurrency lease (lua/shared/leases.lua). With `rcs` (receipts: rcs[i - first + 1] is that of
  ids[i]) an id whose `<id>:rc` is not its receipt is left alone and answers 0. Returns one integer
  per id, in order: 1 when that message existed (in the set and the hash), else 0; or a NOPERM
  error reply, with nothing deleted, when the user may not run HDEL (its ZREM would otherwise be
  done alone); then how many leases it freed.
  delete-one.lua deletes one message the same way, without the table of results.
]]
local rcall = redis.call
local unpackIds = table.unpack or unpack

local function deleteIds(queueSet, queueHash, leasesKey, ids, first, last, rcs)
  local current
  if rcs and last >= first then
    local fields = {}
    for i = first, last do
      fields[#fields + 1] = ids[i] .. ":rc"
    end
    current = rcall("HMGET", queueHash, unpackIds(fields))
  end
  local refused = refusedCommand("hdel", "zrem")
  if refused then
    return refused, 0
  end
  local results, released = {}, {}
  for i = first, last do
    local id = ids[i]
    if current and current[i - first + 1] ~= rcs[i - first + 1] then
      results[#results + 1] = 0
    else
      released[#released + 1] = id
      local removed = rcall("ZREM", queueSet, id)
      local fields = rcall("HDEL", queueHash, id, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":tp", id .. ":at")
      if removed == 1 and fields > 0 then
        results[#results + 1] = 1
      else
        results[#results + 1] = 0
      end
    end
  end
  local freed = 0
  if #released > 0 then
    freed = rcall("ZREM", leasesKey, unpackIds(released))
  end
  return results, freed
end
