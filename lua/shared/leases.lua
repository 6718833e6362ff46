--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that reads or writes a
  queue's concurrency leases, after now.lua and refused-command.lua, whose functions it calls.
  Its Redis calls touch only the keys it is given.

  While a queue's hash has `concurrency` (lib/operations/queue-fields.ts), rsmq-next receives with
  a vt hold a lease per message: `<ns>:<q>:leases`, a sorted set, member = message id, score = the
  epoch ms its lease ends (the hiddenUntil the receive or extension wrote). In flight = members
  whose MESSAGE score is still ahead: a lease whose message is gone (an rsmq 0.12.4 delete) or
  visible again (its vt lapsed) is stale, and the receive that needs the room removes it. No
  counter: nothing a forgotten path could leave wrong outlives one vt.

  leaseKit() returns the functions below in a table. One function here, whose closures are made
  only when called: a script defines every function of its shared Lua on each run, about a
  thousand instructions each, and only a queue with a limit needs these.
  - room(leasesKey, queueSet, limit, count, nowMs): how many of `count` a receive may take. Reads
    only. Cheap first: one ZCOUNT of the leases still running; only when that would not leave
    room for all `count` does it look at every member's message (ZMSCORE, in chunks) and count
    exactly. Returns room, heal: heal is nil after the cheap look, else { stale = { ids },
    earliest = the earliest in-flight message score or nil }.
  - hold(leasesKey, pairs, endMs, nowMs): ZADD of `pairs` (score, id, ...) and the key's TTL
    (extendTtl). A write.
  - extendTtl(leasesKey, endMs, nowMs): the key's TTL reaches endMs + LEASE_GRACE_MS and never
    shrinks (PTTL read, PEXPIRE only when larger), so it never outlasts the latest lease by more.
  - dropStale(leasesKey, heal): removes the stale members a heal found. A write.
  - maxedText(heal, nowMs, hiddenUntilMs): `maxed:<ms>`, ms until the earliest in-flight message
    (or the ones just taken, hidden until hiddenUntilMs) is visible again: a slot frees then.
  - heldReply(queueSet, queueHash, leasesKey, heal, alreadyMaxed, reply, nowMs): the reply of a
    receive held at the limit before it took anything: `maxed:<ms>` only when a message is due
    now, else the normal reply (the queue's next due time, -1 when empty). The stale leases
    found go, and `maxed` is set (when not already) for the freeing delete to announce.
]]
local LEASE_GRACE_MS = 1000
-- Members per ZMSCORE or ZREM: a bounded argument list however many leases a heal looks at.
local HEAL_CHUNK = 500

local function leaseKit()
  local rcall = redis.call
  local unpackLeases = table.unpack or unpack
  local kit = {}

  function kit.room(leasesKey, queueSet, limit, count, nowMs)
    local running = rcall("ZCOUNT", leasesKey, "(" .. string.format("%d", nowMs), "+inf")
    if running + count <= limit then
      return count, nil
    end
    local members = rcall("ZRANGE", leasesKey, "0", "-1")
    local heal = { stale = {}, earliest = nil }
    local inFlight = 0
    for first = 1, #members, HEAL_CHUNK do
      local last = math.min(#members, first + HEAL_CHUNK - 1)
      local scores = rcall("ZMSCORE", queueSet, unpackLeases(members, first, last))
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

  function kit.extendTtl(leasesKey, endMs, nowMs)
    local wanted = endMs - nowMs + LEASE_GRACE_MS
    if rcall("PTTL", leasesKey) < wanted then
      rcall("PEXPIRE", leasesKey, string.format("%d", wanted))
    end
  end

  function kit.hold(leasesKey, pairs, endMs, nowMs)
    rcall("ZADD", leasesKey, unpackLeases(pairs))
    kit.extendTtl(leasesKey, endMs, nowMs)
  end

  function kit.dropStale(leasesKey, heal)
    if heal then
      for first = 1, #heal.stale, HEAL_CHUNK do
        rcall("ZREM", leasesKey, unpackLeases(heal.stale, first, math.min(#heal.stale, first + HEAL_CHUNK - 1)))
      end
    end
  end

  function kit.maxedText(heal, nowMs, hiddenUntilMs)
    local earliest = heal and heal.earliest
    if hiddenUntilMs and (not earliest or hiddenUntilMs < earliest) then
      earliest = hiddenUntilMs
    end
    return "maxed:" .. string.format("%d", math.max(0, (earliest or nowMs) - nowMs))
  end

  function kit.heldReply(queueSet, queueHash, leasesKey, heal, alreadyMaxed, reply, nowMs)
    local head = rcall("ZRANGE", queueSet, "0", "0", "WITHSCORES")
    local due = head[2] ~= nil and tonumber(head[2]) <= nowMs
    if head[2] == nil then
      reply[1] = -1
    else
      reply[1] = due and kit.maxedText(heal, nowMs, nil) or tonumber(head[2]) - nowMs
    end
    local refused = refusedCommand("zrem", "hset")
    if refused then
      return refused
    end
    kit.dropStale(leasesKey, heal)
    if due and not alreadyMaxed then
      rcall("HSET", queueHash, "maxed", "1")
    end
    return reply
  end

  return kit
end
