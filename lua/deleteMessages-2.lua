--[[
  Deletes several messages at once. Like deleteMessage it does not check that the queue exists.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV    message ids

  Returns one integer per id, in order: 1 when that message existed, else 0.
]]
local queueSet, queueHash = KEYS[1], KEYS[2]

-- deleteIds is lua/shared/delete-ids.lua, which the loader puts before this script (after
-- refused-command.lua): it checks HDEL itself, before its first write.
return deleteIds(queueSet, queueHash, ARGV, 1, #ARGV)
