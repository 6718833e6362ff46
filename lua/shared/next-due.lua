--[[
  Put by the loader (lib/scripts/script-files.ts) before the scripts that look whether a message
  is due (nextDue, lookAndBeat), after queue-gate.lua and now.lua, whose queueGate and serverNowMs
  it calls. It only reads.

  nextDueReply(queueSet, queueHash, alsoRead): reads the queue's settings (one HMGET, with the
  `:Q` field `alsoRead` last when given, so a caller that needs one more field pays no extra
  call) and the earliest message. Returns reply, fields, nowMs:
  - reply: -1 when the queue does not exist (then fields and nowMs are nil: TIME is not read);
    else nextDue's reply (lua/nextDue-2.lua says what it holds);
  - fields: what the HMGET answered (fields[11]: `schednext`; fields[12]: the value of `alsoRead`);
  - nowMs: the server's time the reply was read against.

  A queue with schedules that may fire (`schednext`: the earliest next slot, server ms, of those
  neither paused nor ended; 0 when one is not yet known) gets reply[3] = the ms until then (0: due
  now, or unknown), with reply[2] = 0 when no sweep is wanted; any other queue gets the reply it
  always got. The Worker that looks fires its queue's schedules when it is 0 (lib/schedules/).
]]

-- The reply with the schedule hint: reply[3] = ms until the earliest schedule slot, when any.
local function withScheduleHint(reply, schedNext, nowMs)
  if schedNext then
    reply[2] = reply[2] or 0
    reply[3] = math.max(0, (tonumber(schedNext) or 0) - nowMs)
  end
  return reply
end

-- The reply without the hint: nextDueReply adds it to whichever reply this gives.
local function dueReply(queueSet, queueHash, alsoRead)
  local fields
  if alsoRead then
    fields = redis.call("HMGET", queueHash, "vt", "delay", "maxsize", "retention", "sweeplock", "sweptat", "paused", "ratelimit", "rltat", "rlblock", "schednext", alsoRead)
  else
    fields = redis.call("HMGET", queueHash, "vt", "delay", "maxsize", "retention", "sweeplock", "sweptat", "paused", "ratelimit", "rltat", "rlblock", "schednext")
  end
  if not (fields[1] and fields[2] and fields[3]) then
    return -1
  end

  local nowMs, seconds, micros = serverNowMs()

  -- A pause answers whatever is due; a limit or a block only when a message is due now and no
  -- token is left.
  local held
  if fields[7] or fields[8] or fields[10] then
    local _
    _, held = queueGate(fields[7], fields[8], fields[9], fields[10], nowMs, seconds, micros, 1)
    if held and string.byte(held, 1) == 112 then -- "p": paused
      return { held }, fields, nowMs
    end
  end

  local first = redis.call("ZRANGE", queueSet, 0, 0, "WITHSCORES")
  if #first == 0 then
    return { -1 }, fields, nowMs
  end
  local dueMs = math.max(0, tonumber(first[2]) - nowMs)
  if held and dueMs == 0 then
    return { held }, fields, nowMs
  end

  -- How often an idle Worker sweeps its queue, at most.
  local SWEEP_EVERY_MS = 60000
  if (tonumber(fields[4] or "0") or 0) > 0 then
    local lockUntil = tonumber(string.match(fields[5] or "", ":(%d+)$") or "0")
    local sweptAt = tonumber(fields[6] or "0") or 0
    if lockUntil <= nowMs and nowMs - sweptAt >= SWEEP_EVERY_MS then
      return { dueMs, 1 }, fields, nowMs
    end
  end
  return { dueMs }, fields, nowMs
end

local function nextDueReply(queueSet, queueHash, alsoRead)
  local reply, fields, nowMs = dueReply(queueSet, queueHash, alsoRead)
  if reply ~= -1 then
    withScheduleHint(reply, fields[11], nowMs)
  end
  return reply, fields, nowMs
end
