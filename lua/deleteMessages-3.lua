--[[
  Deletes several messages at once. Like deleteMessage it does not check that the queue exists.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  KEYS[3] leases            <ns>:<qname>:leases (lua/shared/leases.lua)
  ARGV[1] flags: "r" when receipts follow the ids, "s" when sharded (a `~free:` goes by SPUBLISH,
          lua/shared/free-slot.lua), both, or ""
  ARGV[2..] message ids, then (with "r") one receipt per id, in the same order

  Returns one integer per id, in order: 1 when that message existed, else 0 (also for an id whose
  receipt is not the message's: left alone). When it freed a lease of a queue a receive was held
  at (`maxed`): { results, `~free:<server ms>` }, the wake it published (and a refused publish's
  error and command after it, lua/shared/free-slot.lua).
]]
local queueSet, queueHash, leasesKey = KEYS[1], KEYS[2], KEYS[3]
local last, rcs = #ARGV, nil
local sharded = string.find(ARGV[1], "s", 1, true) ~= nil
if string.find(ARGV[1], "r", 1, true) then
  last = 1 + (#ARGV - 1) / 2
  rcs = { (table.unpack or unpack)(ARGV, last + 1, #ARGV) }
end

-- deleteIds is lua/shared/delete-ids.lua, which the loader puts before this script (after
-- refused-command.lua): it checks HDEL itself, before its first write.
local results, freed = deleteIds(queueSet, queueHash, leasesKey, ARGV, 2, last, rcs)
if freed > 0 and not results.err then
  -- announceFree is lua/shared/free-slot.lua: `~free:` only when a receive was held at the limit.
  local wake, refusal = announceFree(queueHash, leasesKey, sharded)
  if refusal then
    return { results, wake, refusal[1], refusal[2] }
  elseif wake then
    return { results, wake }
  end
end
return results
