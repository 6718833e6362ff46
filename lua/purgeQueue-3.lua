--[[
  Purges a queue: removes every message (visible, in flight, delayed) with all its fields, and
  any per-message field left without its message, and keeps the queue, its settings and counters.

  The old data is freed lazily: UNLINK only takes the keys out of the keyspace and, for a sorted
  set or hash of more than 64 entries, leaves the freeing to Redis' background thread, so this
  script costs about the same on a queue of ten thousand messages as on one of a million (238 µs
  in SLOWLOG, where a DEL of the same queue held the server 1.8 s: bench/results/purge.md). The
  kept fields are written back into a new, small hash in the same script, so no client ever sees
  the queue without them.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  KEYS[3] leases            <ns>:<qname>:leases (lua/shared/leases.lua): a purge frees every slot
  ARGV    the names of the hash's fields that are not messages' (QUEUE_FIELDS in
          lib/operations/queue-fields.ts): kept as they are, and only these; one must be "vt".
          `concurrency` is one (the limit stays), `maxed` is not (no receive is held any more);
          with `consumers` among them, the heartbeat entries it lists (`~w:<id>`) are kept too,
          and with `schedules`, the schedules it lists (`~sched:<name>`). The tenants' fair tags
          (`~fq:<tenant>`, lua/shared/fair-score.lua) are never listed: a purge drops them, as
          there is nothing left for them to be fair about

  Returns how many messages were removed (the sorted set's ZCARD), or -1 when the queue does not
  exist (no vt, rsmq's test): nothing is written then.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local unpackAll = table.unpack or unpack -- table.unpack on Lua 5.4

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

local values = rcall("HMGET", queueHash, unpackAll(ARGV))
local kept = {}
local exists = false
for i, name in ipairs(ARGV) do
  if values[i] then
    kept[#kept + 1] = name
    kept[#kept + 1] = values[i]
    if name == "vt" then
      exists = true
    end
  end
end
if not exists then
  return -1
end
-- The Workers' heartbeat entries the `consumers` index lists, and the schedules `schedules`
-- lists, stay: they are not messages.
local FAMILIES = { consumers = "~w:", schedules = "~sched:" }
for i, name in ipairs(ARGV) do
  if FAMILIES[name] and values[i] then
    local entries = {}
    for member in string.gmatch(values[i], "%S+") do
      entries[#entries + 1] = FAMILIES[name] .. member
    end
    if #entries > 0 then
      local beats = rcall("HMGET", queueHash, unpackAll(entries))
      for j, field in ipairs(entries) do
        if beats[j] then
          kept[#kept + 1] = field
          kept[#kept + 1] = beats[j]
        end
      end
    end
  end
end

-- The hash is taken away before its fields are written back: an ACL refusal in between would lose the queue.
local refused = refusedCommand("unlink", "hset")
if refused then
  return refused
end

local removed = rcall("ZCARD", queueSet)
rcall("UNLINK", queueSet, queueHash, KEYS[3])
rcall("HSET", queueHash, unpackAll(kept))
return removed
