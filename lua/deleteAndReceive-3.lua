--[[
  Deletes messages by id, then receives up to `count` due messages, in one call: deleteMessages
  followed by receiveMessage (or receiveMessages), as one script, so a consumer that settles a
  message and takes the next spends one round trip on both. An rsmq 0.12.4 client on the same
  queue sees exactly what that delete followed by that receive leaves.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  KEYS[3] leases            <ns>:<qname>:leases (lua/shared/leases.lua)
  ARGV[1] n, how many ids follow (0 or more)
  ARGV[2] flags: "r" when the ids' receipts follow them, "s" when sharded (a `~free:` goes by
          SPUBLISH, lua/shared/free-slot.lua), both, or ""
  ARGV[3] to ARGV[n + 2]  the message ids to delete, as deleteMessages takes them
  then, with "r", n receipts, one per id in the same order (deleteMessages' rule)
  then                    receiveMessage's ARGV (vt, count, "d" or "", the batch's byte
                          bound), with the same trailing ones left off

  Returns { deleted, received } or { deleted, received, wake }: `deleted` has one integer per id,
  in order, 1 when that message existed (deleteMessages' reply); `received` is receiveMessage's
  reply (its table, or -1 for a missing queue) or, when the receive part failed, a string: the
  error Redis or the script gave it (a NOPERM refusal). A string is never a receive reply, so the
  two cannot be confused, and both node-redis and ioredis read a nested string alike (a nested
  error reply they do not). `wake` is `~free:<server ms>`, published when the deletes freed a
  concurrency lease of a queue a receive was held at (`maxed`) and the receive part left a slot
  free (taking the freed slot itself, or held again, it announces nothing); a refused publish's
  error and command follow it (lua/shared/free-slot.lua).

  The deletes come first and are never undone: a receive part that fails (a user allowed ZREM and
  HDEL but not HINCRBY, or not the reads of a receive) comes back in the reply beside them, never
  as the error of a call that has written. The receive's own ACL check precedes its first write,
  so a refused receive writes nothing; a command refused where no check ran (before Redis 7,
  which has no redis.acl_check_cmd) is caught by pcall and answered the same way. A refused HDEL
  refuses the whole call before anything is written, as deleteMessages does.
]]
local queueSet, queueHash, leasesKey = KEYS[1], KEYS[2], KEYS[3]
local idCount = tonumber(ARGV[1])
local rcs = nil
local at = idCount + 3
if string.find(ARGV[2], "r", 1, true) then
  rcs = { (table.unpack or unpack)(ARGV, at, at + idCount - 1) }
  at = at + idCount
end
local sharded = string.find(ARGV[2], "s", 1, true) ~= nil

-- deleteIds is lua/shared/delete-ids.lua and receiveDue lua/shared/receive-due.lua, which the
-- loader puts before this script with the shared Lua they call.
local deleted, freed = deleteIds(queueSet, queueHash, leasesKey, ARGV, 3, idCount + 2, rcs)
if deleted.err then
  return deleted
end
local details = ARGV[at + 2] == "d"
local ran, received, slotsLeft = pcall(receiveDue, queueSet, queueHash, leasesKey, ARGV[at] or "", tonumber(ARGV[at + 1] or "1"), details, tonumber(ARGV[at + 3] or ""))
if not ran then
  -- Redis 7 raises a table { err = message }, earlier ones the message itself.
  if type(received) == "table" then
    received = received.err
  end
elseif type(received) == "table" and received.err then
  received = received.err
end
if freed > 0 and ran and (slotsLeft == nil or slotsLeft > 0) then
  -- announceFree is lua/shared/free-slot.lua: `~free:` only when a receive was held at the limit.
  local wake, refusal = announceFree(queueHash, leasesKey, sharded)
  if refusal then
    return { deleted, received, wake, refusal[1], refusal[2] }
  elseif wake then
    return { deleted, received, wake }
  end
end
return { deleted, received }
