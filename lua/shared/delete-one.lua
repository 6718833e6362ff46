--[[
  Put by the loader (lib/scripts/script-files.ts) before each script that deletes one message, after refused-command.lua,
  whose refusedCommand it calls. Its Redis calls touch only the three keys it is given.

  deleteOne(queueSet, queueHash, leasesKey, id, rc): deletes one message as deleteIds (delete-ids.lua) deletes
  each of its list; returns 1 when it existed (in the set and the hash), else 0, or a NOPERM error
  reply, with nothing deleted, when the user may not run HDEL; then 1 when it freed a concurrency
  lease (lua/shared/leases.lua), else 0. With `rc` (a receipt, the text of a whole number) it
  deletes only while `<id>:rc` is that: else 0 and nothing written. A file of its own:
  deleteIds' table of results, and each function a script defines (a closure made on every
  call), cost a one-message delete about a tenth more instructions (callgrind).

  Its lease goes with one ZREM, whether or not the queue has a limit: cheaper than reading the
  hash to know (a ZREM on a missing key is the cheapest command there is on it).
]]
local rcall = redis.call

local function deleteOne(queueSet, queueHash, leasesKey, id, rc)
  if rc and rcall("HGET", queueHash, id .. ":rc") ~= rc then
    return 0, 0
  end
  local refused = refusedCommand("hdel", "zrem")
  if refused then
    return refused, 0
  end
  local removed = rcall("ZREM", queueSet, id)
  local fields = rcall("HDEL", queueHash, id, id .. ":rc", id .. ":fr", id .. ":dl", id .. ":tp", id .. ":at")
  local freed = rcall("ZREM", leasesKey, id)
  if removed == 1 and fields > 0 then
    return 1, freed
  end
  return 0, freed
end
