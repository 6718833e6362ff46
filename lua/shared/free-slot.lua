--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that may free a concurrency
  lease (lua/shared/leases.lua) and tell consumers held at the limit: the deletes, the visibility
  changes, deleteAndReceive. It calls nothing else shared, so a delete carries one function more
  and no other (each function a script defines costs it on every run); its Redis calls touch only
  the hash, the leases key and the wake channel it is given.

  announceFree(queueHash, leasesKey, sharded): after a lease was freed. When a receive was held at
  the limit since the last slot freed (`maxed` = "1"), removes `maxed` and publishes
  `~free:<server ms>` on the queue's wake channel (SPUBLISH when sharded, PUBLISH before Redis 7,
  as lua/shared/pause.lua's publishControl); returns that text, else nil, and when Redis refused
  the publish (an ACL user without the channel), { error, command } for the caller to report:
  the script's reply carries both after its own (lib/operations/delete-message.ts). The channel is
  `<ns>:wake:<name>` for the leases key `<ns>:<name>:leases` (lib/keys.ts: a queue's name never
  holds a colon), so no call carries it. A refused publish never undoes the write it tells of:
  held consumers find the slot at their retry time then.
]]
local function announceFree(queueHash, leasesKey, sharded)
  if redis.call("HGET", queueHash, "maxed") ~= "1" then
    return nil
  end
  -- TIME before the write: a read the ACL refuses then leaves nothing half done.
  local time = redis.call("TIME")
  redis.call("HDEL", queueHash, "maxed")
  local wake = "~free:" .. string.format("%d", tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
  local ns, name = string.match(leasesKey, "^(.*):([^:]+):leases$")
  local channel = ns .. ":wake:" .. name
  local command, published = "PUBLISH", nil
  if sharded then
    command = "SPUBLISH"
    published = redis.pcall("SPUBLISH", channel, wake)
    if type(published) == "table" and published.err and string.find(published.err, "nknown") then
      command = "PUBLISH"
      published = redis.pcall("PUBLISH", channel, wake)
    end
  else
    published = redis.pcall("PUBLISH", channel, wake)
  end
  if type(published) == "table" and published.err then
    return wake, { published.err, command }
  end
  return wake, nil
end
