--[[
  Deletes several messages at once. Like deleteMessage it does not check that the queue exists.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  KEYS[3] leases            <ns>:<qname>:leases (lua/shared/leases.lua)
  ARGV[1] the queue's wake channel ("": none)   ARGV[2] "1" when sharded (SPUBLISH)
  ARGV[3] "r" when receipts follow the ids, else ""
  ARGV[4..] message ids, then (with "r") one receipt per id, in the same order

  Returns one integer per id, in order: 1 when that message existed, else 0 (also for an id whose
  receipt is not the message's: left alone). When it freed a lease of a queue a receive was held
  at (`maxed`): { results, `~free:<server ms>` }, the wake it published.
]]
local queueSet, queueHash, leasesKey = KEYS[1], KEYS[2], KEYS[3]
local last, rcs = #ARGV, nil
if ARGV[3] == "r" then
  last = 3 + (#ARGV - 3) / 2
  rcs = { (table.unpack or unpack)(ARGV, last + 1, #ARGV) }
end

-- deleteIds is lua/shared/delete-ids.lua, which the loader puts before this script (after
-- refused-command.lua): it checks HDEL itself, before its first write.
local results, freed = deleteIds(queueSet, queueHash, leasesKey, ARGV, 4, last, rcs)
if freed > 0 and not results.err then
  -- announceFree is lua/shared/leases.lua: `~free:` only when a receive was held at the limit.
  local wake = announceFree(queueHash, ARGV[1], ARGV[2] == "1")
  if wake then
    return { results, wake }
  end
end
return results
