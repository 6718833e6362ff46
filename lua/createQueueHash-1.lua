--[[
  Creates a queue whose registry lives in another slot (Redis Cluster): the queue hash only. The
  caller adds the name to <ns>:QUEUES first, so a queue never exists without being listed.

  KEYS[1] queue hash  <ns>:{<qname>}:Q
  ARGV[1] vt (s)   ARGV[2] delay (s)   ARGV[3] maxsize
  ARGV[4] retention (s), absent or "" for none   ARGV[5] expireto, absent or "" for none
  ARGV[6] dedupwindow (ms), absent or "" for none

  Returns 1, or -2 when the queue exists (nothing is written then).
]]
local queueHash = KEYS[1]
local vt, delay, maxsize = ARGV[1], ARGV[2], ARGV[3]
local retention, expireto = ARGV[4] or "", ARGV[5] or ""
local dedupwindow = ARGV[6] or ""

-- newQueueHash(...) is lua/shared/queue-hash.lua, which the loader puts before this script (with
-- lua/shared/refused-command.lua, whose refusedCommand it calls).
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.

-- Read before the first write: a refused TIME (an ACL user without it) then writes nothing.
local _, seconds = serverNowMs()
return newQueueHash(queueHash, string.format("%d", seconds), vt, delay, maxsize, retention, expireto, dedupwindow) or 1
