--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that reads or writes a
  queue's concurrency leases, after now.lua and pause.lua, whose functions it calls. Its Redis
  calls touch only the keys and channels it is given.

  While a queue's hash has `concurrency` (lib/operations/queue-fields.ts), rsmq-next receives with
  a vt hold a lease per message: `<ns>:<q>:leases`, a sorted set, member = message id, score = the
  epoch ms its lease ends (the hiddenUntil the receive or extension wrote). In flight = members
  whose MESSAGE score is still ahead: a lease whose message is gone (an rsmq 0.12.4 delete) or
  visible again (its vt lapsed) is stale, and the receive that needs the room removes it. No
  counter: nothing a forgotten path could leave wrong outlives one vt.

  leaseRoom(leasesKey, queueSet, limit, count, nowMs): how many of `count` a receive may take.
    Reads only. Cheap first: one ZCOUNT of the leases still running; only when that would not
    leave room for all `count` does it look at every member's message (ZMSCORE, in chunks) and
    count exactly. Returns room, heal: heal is nil after the cheap look, else
    { stale = { ids }, earliest = the earliest in-flight message score or nil }.
  holdLeases(leasesKey, pairs, endMs, nowMs): ZADD of `pairs` (score, id, ...) and the key's TTL
    (extendLeaseTtl). A write.
  extendLeaseTtl(leasesKey, endMs, nowMs): the key's TTL reaches endMs + LEASE_GRACE_MS and never
    shrinks (PTTL read, PEXPIRE only when larger), so it never outlasts the latest lease by more.
  dropStale(leasesKey, heal): removes the stale members a heal found. A write.
  maxedText(heal, nowMs, hiddenUntilMs): `maxed:<ms>`, ms until the earliest in-flight message
    (or the ones just taken, hidden until hiddenUntilMs) is visible again: a slot frees then.
  announceFree(queueHash, channel, sharded): after a lease was freed. When a receive was held at
    the limit since the last slot freed (`maxed` = "1"), removes `maxed` and publishes
    `~free:<server ms>` on the wake channel (publishControl); returns that text, else nil.
]]
local LEASE_GRACE_MS = 1000
-- Members per ZMSCORE: a bounded argument list however many leases a heal looks at.
local HEAL_CHUNK = 500
local unpackLeases = table.unpack or unpack

local function leaseRoom(leasesKey, queueSet, limit, count, nowMs)
  local now = string.format("%d", nowMs)
  local running = redis.call("ZCOUNT", leasesKey, "(" .. now, "+inf")
  if running + count <= limit then
    return count, nil
  end
  local members = redis.call("ZRANGE", leasesKey, "0", "-1")
  local heal = { stale = {}, earliest = nil }
  local inFlight = 0
  for first = 1, #members, HEAL_CHUNK do
    local last = math.min(#members, first + HEAL_CHUNK - 1)
    local scores = redis.call("ZMSCORE", queueSet, unpackLeases(members, first, last))
    for i = first, last do
      local score = scores[i - first + 1] and tonumber(scores[i - first + 1])
      if score and score > nowMs then
        inFlight = inFlight + 1
        if not heal.earliest or score < heal.earliest then
          heal.earliest = score
        end
      else
        heal.stale[#heal.stale + 1] = members[i]
      end
    end
  end
  return math.max(0, math.min(count, limit - inFlight)), heal
end

local function extendLeaseTtl(leasesKey, endMs, nowMs)
  local wanted = endMs - nowMs + LEASE_GRACE_MS
  if redis.call("PTTL", leasesKey) < wanted then
    redis.call("PEXPIRE", leasesKey, string.format("%d", wanted))
  end
end

local function holdLeases(leasesKey, pairs, endMs, nowMs)
  redis.call("ZADD", leasesKey, unpackLeases(pairs))
  extendLeaseTtl(leasesKey, endMs, nowMs)
end

local function dropStale(leasesKey, heal)
  if heal and #heal.stale > 0 then
    for first = 1, #heal.stale, HEAL_CHUNK do
      redis.call("ZREM", leasesKey, unpackLeases(heal.stale, first, math.min(#heal.stale, first + HEAL_CHUNK - 1)))
    end
  end
end

local function maxedText(heal, nowMs, hiddenUntilMs)
  local earliest = heal and heal.earliest
  if hiddenUntilMs and (not earliest or hiddenUntilMs < earliest) then
    earliest = hiddenUntilMs
  end
  return "maxed:" .. string.format("%d", math.max(0, (earliest or nowMs) - nowMs))
end

local function announceFree(queueHash, channel, sharded)
  if redis.call("HGET", queueHash, "maxed") ~= "1" then
    return nil
  end
  redis.call("HDEL", queueHash, "maxed")
  local wake = "~free:" .. string.format("%d", serverNowMs())
  if channel and channel ~= "" then
    -- A refused publish (an ACL user without the channel) never undoes the delete: held
    -- consumers then find the slot when their retry time (the earliest lease end) comes.
    publishControl(channel, sharded, wake)
  end
  return wake
end
