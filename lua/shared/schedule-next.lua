--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that writes a schedule
  (upsertSchedule, removeSchedule, pauseSchedule, fireSchedule), after refused-command.lua, whose
  refusedCommand it calls. `schednext` in the queue's `:Q` hash is the earliest `next` of the
  schedules that are neither paused nor ended (0 when one of them is unknown), absent when there
  is none: what an idle consumer's look reads to know when a schedule needs firing.

  writeScheduleNext(queueHash, names, name, record): writes `schednext` from `record` (the
    decoded schedule `name` as the caller is writing it, or nil when it is removed) and the
    other schedules of `names`, read by one HMGET; removes the field when no schedule counts.
    The callers check HSET and HDEL before their first write; its own check is for a caller that
    would not (free in the text the runner sends once the user's rights are known).
]]
-- The `next` a schedule adds to `schednext`: nil when paused or ended (-1); 0 when unknown.
local function countedNext(record)
  if type(record) ~= "table" or record.paused == true then
    return nil
  end
  local next = tonumber(record.next) or 0
  if next < 0 then
    return nil
  end
  return next
end

local function writeScheduleNext(queueHash, names, name, record)
  local refused = refusedCommand("hset", "hdel")
  if refused then
    return refused
  end
  local earliest = countedNext(record)
  local others = {}
  for _, other in ipairs(names) do
    if other ~= name then
      others[#others + 1] = "~sched:" .. other
    end
  end
  if #others > 0 then
    local texts = redis.call("HMGET", queueHash, (table.unpack or unpack)(others))
    for i = 1, #others do
      if texts[i] then
        -- A definition that does not decode (written by hand) counts as unknown: firers look.
        local decoded, other = pcall(cjson.decode, texts[i])
        local next = decoded and countedNext(other) or (not decoded and 0) or nil
        if next and (not earliest or next < earliest) then
          earliest = next
        end
      end
    end
  end
  if earliest then
    redis.call("HSET", queueHash, "schednext", string.format("%d", math.floor(earliest)))
  else
    redis.call("HDEL", queueHash, "schednext")
  end
end
