--[[
  Repairs a queue's settings as the doctor decided, checked again here in the same atomic step:
  - a missing vt, delay or maxsize gets rsmq's default (HSETNX), only while the hash still holds
    at least one of the three, so a queue deleted since the look is never brought back half-made;
  - a `retention` that is not a whole number of seconds is removed (messages are then kept for
    ever, as without retention), only while it still holds the value the doctor saw.

  KEYS[1] queue hash  <ns>:<qname>:Q
  ARGV[1] vt default   ARGV[2] delay default   ARGV[3] maxsize default
  ARGV[4] the bad retention value seen, or "" to leave retention alone

  Returns { vtSet, delaySet, maxsizeSet, retentionRemoved }, each 1 or 0.
]]
local rcall = redis.call
local queueHash = KEYS[1]

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.
local refused = refusedCommand("hsetnx", "hdel", "hget")
if refused then
  return refused
end

local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize")
local reply = { 0, 0, 0, 0 }
if settings[1] or settings[2] or settings[3] then
  local names = { "vt", "delay", "maxsize" }
  for i = 1, 3 do
    if not settings[i] then
      reply[i] = rcall("HSETNX", queueHash, names[i], ARGV[i])
    end
  end
end
if ARGV[4] ~= "" and rcall("HGET", queueHash, "retention") == ARGV[4] then
  reply[4] = rcall("HDEL", queueHash, "retention")
end
return reply
