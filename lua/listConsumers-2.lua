--[[
  The Workers consuming a queue, by their heartbeat entries (lua/lookAndBeat-2.lua says what
  they are): the entries `consumers` lists that have not expired on the server's clock. Only
  reads; a stale entry stays until the next beat sweeps it.

  KEYS[1] queue sorted set  <ns>:<qname>  (unused: the scripts of a queue all declare both keys)
  KEYS[2] queue hash        <ns>:<qname>:Q

  Returns { nowMs, id1, entry1, id2, entry2, ... } in the list's order (entry:
  `<expiresAtMs>:<lastSeenMs>:<json>`), or -1 when the queue does not exist.
]]
local rcall = redis.call
local queueHash = KEYS[2]
local unpackAll = table.unpack or unpack -- table.unpack on Lua 5.4

local fields = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "consumers")
if not (fields[1] and fields[2] and fields[3]) then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()
local reply = { string.format("%d", nowMs) }
local ids, names, seen = {}, {}, {}
for id in string.gmatch(fields[4] or "", "%S+") do
  if not seen[id] then
    seen[id] = true
    ids[#ids + 1] = id
    names[#names + 1] = "~w:" .. id
  end
end
if #ids == 0 then
  return reply
end
local entries = rcall("HMGET", queueHash, unpackAll(names))
for i, id in ipairs(ids) do
  local expiresAt = tonumber(string.match(entries[i] or "", "^(%d+):") or "0")
  if expiresAt > nowMs then
    reply[#reply + 1] = id
    reply[#reply + 1] = entries[i]
  end
end
return reply
