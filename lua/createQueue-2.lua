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

-- newQueueHash(...) is lua/shared/queue-hash.lua, which the loader puts before this script.
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.

-- Read before the first write: a refused TIME (an ACL user without it) then writes nothing.
local _, seconds = serverNowMs()
local refused = refusedCommand("sadd")
if refused then
  return refused
end
local notCreated = newQueueHash(queueHash, string.format("%d", seconds), vt, delay, maxsize, retention, expireto, dedupwindow)
if notCreated then
  return notCreated
end
rcall("SADD", registry, qname)
return 1
