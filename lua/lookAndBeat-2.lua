--[[
  A Worker's look with its heartbeat: nextDue's read-only look (lua/nextDue-2.lua), and the
  Worker's entry in the queue's hash, so listConsumers can tell who consumes the queue. An idle
  Worker makes it in place of a look it makes anyway: the beat costs no extra round trip.

  The entries (lib/operations/queue-fields.ts): `~w:<workerId>` = `<expiresAtMs>:<lastSeenMs>:<json>`
  (server clock), and `consumers`, the ids that have one, space-separated. Neither name can be a
  message's field (an id is 32 characters of [A-Za-z0-9]), so rsmq 0.12.4 never misreads them and
  its deleteQueue takes them with the hash.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] the Worker's id (16 characters of [A-Za-z0-9])
  ARGV[2] its description, JSON (host, pid, concurrency, startedAt)
  ARGV[3] ms the entry lives unless the Worker beats again (a whole number >= 1)

  Writes the entry (expires at now + ARGV[3]), adds the id to `consumers` when missing, and sweeps
  the entries `consumers` lists that are gone or expired (a Worker that died without stopping):
  their fields go and their ids leave the list. Returns exactly what nextDue returns (its schedule
  hint included), -1 (writing nothing) when the queue does not exist.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local workerId, json, ttlMs = ARGV[1], ARGV[2], tonumber(ARGV[3])
local ENTRY = "~w:"
local unpackAll = table.unpack or unpack -- table.unpack on Lua 5.4

-- nextDueReply is lua/shared/next-due.lua, put before this script by the loader; it reads
-- `consumers` in the HMGET it makes anyway (fields[12]).
local reply, fields, nowMs = nextDueReply(queueSet, queueHash, "consumers")
if reply == -1 then
  return -1
end

-- The other Workers' entries: every read before the first write. The list keeps its order (a
-- beat of a Worker already listed, with no one to sweep, leaves it as it is) and each id once.
local listed, seen, names = {}, {}, {}
for id in string.gmatch(fields[12] or "", "%S+") do
  if not seen[id] then
    seen[id] = true
    listed[#listed + 1] = id
    if id ~= workerId then
      names[#names + 1] = ENTRY .. id
    end
  end
end
if not seen[workerId] then
  listed[#listed + 1] = workerId
end
local entries = #names > 0 and rcall("HMGET", queueHash, unpackAll(names)) or {}
local live, stale, other = {}, {}, 0
for _, id in ipairs(listed) do
  if id == workerId then
    live[#live + 1] = id
  else
    other = other + 1
    local expiresAt = tonumber(string.match(entries[other] or "", "^(%d+):") or "0")
    if expiresAt > nowMs then
      live[#live + 1] = id
    else
      stale[#stale + 1] = names[other]
    end
  end
end

-- refusedCommand(...) is lua/shared/refused-command.lua: a user refused HDEL writes nothing,
-- even when no entry is stale (a beat that works only until a Worker dies would hide the refusal).
local refused = refusedCommand("hset", "hdel")
if refused then
  return refused
end

local entry = string.format("%d", nowMs + ttlMs) .. ":" .. string.format("%d", nowMs) .. ":" .. json
local index = table.concat(live, " ")
if index ~= fields[12] then
  rcall("HSET", queueHash, ENTRY .. workerId, entry, "consumers", index)
else
  rcall("HSET", queueHash, ENTRY .. workerId, entry)
end
if #stale > 0 then
  rcall("HDEL", queueHash, unpackAll(stale))
end
return reply
