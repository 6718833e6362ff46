--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that reads or writes a
  queue's concurrency leases, after refused-command.lua, whose refusedCommand it calls. Its Redis
  calls touch only the keys it is given.

  While a queue's hash has `concurrency` (lib/operations/queue-fields.ts), rsmq-next receives with
  a vt hold a lease per message: `<ns>:<q>:leases`, a sorted set, member = message id, score = the
  epoch ms its lease ends (the hiddenUntil the receive or extension wrote). In flight = members
  whose MESSAGE score is still ahead: a lease whose message is gone (an rsmq 0.12.4 delete) or
  visible again (its vt lapsed) is stale, and the receive that needs the room removes it. No
  counter: nothing a forgotten path could leave wrong outlives one vt.

  leaseKit() returns three functions, room, settle and heldAtLimit, made only when called: a script makes every
  function of its shared Lua on each run (about a thousand instructions each, more with
  upvalues), and only a queue with a limit needs these, so a queue without one pays for one.
  - room(leasesKey, queueSet, limit, count, nowMs): how many of `count` a receive may take. Reads
    only. Cheap first: one ZCARD, every lease whether running or stale (at least as many as are
    in flight; two arguments where ZCOUNT's range takes four, and each costs the server more
    than the Lua around it); only when that would not leave room for all `count` does it look at
    every member's message (ZMSCORE, in chunks) and count exactly. Returns room, heal, free: heal
    is nil after the cheap look, else { stale = { ids }, earliest = the earliest in-flight message
    score, or nil when none is in flight }; free is how many slots are free before the receive
    (at least room; after the cheap look, at least as many as it says).
  - settle(leasesKey, heal, pairs, endMs, nowMs): the writes, each only when given: removes the
    stale members a heal found (first: a message taken again may be one of them and keeps its
    new lease), ZADDs `pairs` (score, id, ...), and makes the key's TTL cover endMs: when it does
    not (PTTL read), PEXPIRE sets it to endMs + LEASE_GRACE_MS. So the key never outlasts the
    latest lease by more than the grace, and a stream of receives with one vt pays the PEXPIRE
    once per grace, not on each. Returns nil, or a NOPERM error reply, with nothing written, when
    the user may not run one of them.
  - heldAtLimit(queueSet, queueHash, leasesKey, heal, alreadyMaxed, reply, nowMs): the reply of a
    receive the limit held before it took anything (room 0, so a heal ran and found one in
    flight): `maxed:<ms>` (ms until the earliest in flight is visible again, when its slot frees)
    only when a message is due now, else the normal reply (the next due time, -1 when empty). The
    stale leases go, and `maxed` is set (when not already) for the freeing delete to announce.
]]
local function leaseKit()
  local HEAL_CHUNK, LEASE_GRACE_MS = 500, 1000
  local unpackLeases = table.unpack or unpack

  local function room(leasesKey, queueSet, limit, count, nowMs)
    local leased = redis.call("ZCARD", leasesKey)
    if leased + count <= limit then
      return count, nil, limit - leased
    end
    local members = redis.call("ZRANGE", leasesKey, "0", "-1")
    local heal = { stale = {}, earliest = nil }
    local inFlight = 0
    -- Members per ZMSCORE: a bounded argument list however many leases there are.
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
    return math.max(0, math.min(count, limit - inFlight)), heal, math.max(0, limit - inFlight)
  end

  local function settle(leasesKey, heal, pairs, endMs, nowMs)
    -- Every caller checked these before its own first write; named here too, so this function
    -- stands on its own (a refusal answers before it writes anything).
    local refused = refusedCommand("zrem", "zadd", "pexpire")
    if refused then
      return refused
    end
    -- Read before the writes: a key the ZADD makes has no TTL yet (-1), and none at all (-2) is as short.
    local ttl = endMs and redis.call("PTTL", leasesKey)
    if heal then
      for first = 1, #heal.stale, HEAL_CHUNK do
        redis.call("ZREM", leasesKey, unpackLeases(heal.stale, first, math.min(#heal.stale, first + HEAL_CHUNK - 1)))
      end
    end
    if pairs then
      redis.call("ZADD", leasesKey, unpackLeases(pairs))
    end
    if endMs and ttl < endMs - nowMs then
      -- PEXPIRE counts from the server's clock when it runs, which may have ticked past the ms
      -- TIME gave nowMs: one ms less keeps the key's end within the grace, never past it.
      redis.call("PEXPIRE", leasesKey, string.format("%d", endMs - nowMs + LEASE_GRACE_MS - 1))
    end
  end

  local function heldAtLimit(queueSet, queueHash, leasesKey, heal, alreadyMaxed, reply, nowMs)
    local head = redis.call("ZRANGE", queueSet, "0", "0", "WITHSCORES")
    local due = head[2] ~= nil and tonumber(head[2]) <= nowMs
    if due then
      reply[1] = "maxed:" .. string.format("%d", math.max(0, heal.earliest - nowMs))
    else
      reply[1] = head[2] and tonumber(head[2]) - nowMs or -1
    end
    local refused = refusedCommand("zrem", "hset")
    if refused then
      return refused
    end
    settle(leasesKey, heal)
    if due and not alreadyMaxed then
      redis.call("HSET", queueHash, "maxed", "1")
    end
    return reply
  end

  return room, settle, heldAtLimit
end
