--[[
  Creates a queue, exactly as rsmq 0.12.4 lays it out (plus rsmq-next's retention and dedupwindow fields when
  given, under names rsmq 0.12.4 never reads).

  KEYS[1] queue hash          <ns>:<qname>:Q
  KEYS[2] queue registry set  <ns>:QUEUES
  ARGV[1] qname   ARGV[2] vt (s)   ARGV[3] delay (s)   ARGV[4] maxsize
  ARGV[5] retention (s), absent or "" for none   ARGV[6] expireto, absent or "" for none
  ARGV[7] dedupwindow (ms), absent or "" for none

  Returns 1, or -2 when the queue exists (nothing is written then).
]]
local rcall = redis.call
local queueHash, registry = KEYS[1], KEYS[2]
local qname, vt, delay, maxsize = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local retention, expireto = ARGV[5] or "", ARGV[6] or ""
local dedupwindow = ARGV[7] or ""

-- refusedCommand(...) is lua/shared/refused-command.lua, which the loader puts before this script.

-- Read before the first write: a refused TIME (an ACL user without it) then writes nothing.
local seconds = rcall("TIME")[1]
local refused = refusedCommand("sadd") or ((retention ~= "" or expireto ~= "" or dedupwindow ~= "") and refusedCommand("hset"))
if refused then
  return refused
end
if rcall("HSETNX", queueHash, "vt", vt) == 0 then
  return -2
end
rcall("HSETNX", queueHash, "delay", delay)
rcall("HSETNX", queueHash, "maxsize", maxsize)
rcall("HSETNX", queueHash, "created", seconds)
rcall("HSETNX", queueHash, "modified", seconds)
if retention ~= "" then
  rcall("HSET", queueHash, "retention", retention)
end
if expireto ~= "" then
  rcall("HSET", queueHash, "expireto", expireto)
end
if dedupwindow ~= "" then
  rcall("HSET", queueHash, "dedupwindow", dedupwindow)
end
rcall("SADD", registry, qname)
return 1
