--[[
  Put by the loader (lib/scripts/script-files.ts) before the scripts that create a queue
  (createQueue, and createQueueHash when the registry lives in another slot), after
  refused-command.lua, whose refusedCommand it calls. Its Redis calls touch only the key it is
  given, which each script takes from its KEYS.

  newQueueHash(queueHash, created, vt, delay, maxsize, retention, expireto, dedupwindow): writes
  a new queue's hash exactly as rsmq 0.12.4 lays it out (HSETNX of vt, delay, maxsize, and of
  created and modified, both `created`: the server's time in seconds, as text), then HSET of each
  of retention, expireto and dedupwindow that is not "" (names rsmq 0.12.4 never reads). Returns
  nil when it created the queue; else, having written nothing, what the script returns: -2 when
  the queue exists, or the NOPERM reply of refusedCommand("hset") when one of those three is
  given and the user may not run HSET.
]]
local function newQueueHash(queueHash, created, vt, delay, maxsize, retention, expireto, dedupwindow)
  local refused = (retention ~= "" or expireto ~= "" or dedupwindow ~= "") and refusedCommand("hset")
  if refused then
    return refused
  end
  if redis.call("HSETNX", queueHash, "vt", vt) == 0 then
    return -2
  end
  redis.call("HSETNX", queueHash, "delay", delay)
  redis.call("HSETNX", queueHash, "maxsize", maxsize)
  redis.call("HSETNX", queueHash, "created", created)
  redis.call("HSETNX", queueHash, "modified", created)
  if retention ~= "" then
    redis.call("HSET", queueHash, "retention", retention)
  end
  if expireto ~= "" then
    redis.call("HSET", queueHash, "expireto", expireto)
  end
  if dedupwindow ~= "" then
    redis.call("HSET", queueHash, "dedupwindow", dedupwindow)
  end
  return nil
end
