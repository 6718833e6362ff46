--[[
  The schedules of a queue as stored (lib/operations/list-schedules.ts parses them), with the
  server's time to read them by. Only reads.

  KEYS[1] queue sorted set  <ns>:<qname>  (unused: the scripts of a queue all declare both keys)
  KEYS[2] queue hash        <ns>:<qname>:Q

  Returns { nowMs, name1, json1, name2, json2, ... } in the order `schedules` lists them (a name
  without its field left out), or -1 when the queue does not exist.
]]
local rcall = redis.call
local queueHash = KEYS[2]
local unpackAll = table.unpack or unpack -- table.unpack on Lua 5.4

local fields = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "schedules")
if not (fields[1] and fields[2] and fields[3]) then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, scheduleNames lua/shared/schedule-names.lua: the loader
-- puts them before this script.
local reply = { string.format("%d", serverNowMs()) }
local names, fieldNames = scheduleNames(fields[4]), {}
if #names == 0 then
  return reply
end
for i, name in ipairs(names) do
  fieldNames[i] = "~sched:" .. name
end
local texts = rcall("HMGET", queueHash, unpackAll(fieldNames))
for i, name in ipairs(names) do
  if texts[i] then
    reply[#reply + 1] = name
    reply[#reply + 1] = texts[i]
  end
end
return reply
