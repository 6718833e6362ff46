--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that writes a schedule
  (upsertSchedule, removeSchedule, pauseSchedule, fireSchedule). The schedules of a queue live in
  its `:Q` hash (lib/operations/queue-fields.ts): `~sched:<name>` holds one schedule as JSON,
  `schedules` lists the names (space-separated, like `consumers`), and `schednext` is the earliest
  `next` of the schedules that are neither paused nor ended (0 when one of them is unknown),
  absent when there is none: what an idle consumer's look reads to know when to fire.

  scheduleNames(indexText): the names `schedules` lists (its HMGET value, or nil), in order,
    each once.
  writeScheduleNext(queueHash, names, name, record): writes `schednext` from `record` (the
    decoded schedule `name` as the caller is writing it, or nil when it is removed) and the
    other schedules of `names`, read by one HMGET; removes the field when no schedule counts.
    The caller has checked HSET and HDEL with refusedCommand.
  scheduleIndexText(names): the `schedules` value for `names`.
]]
local function scheduleNames(indexText)
  local names, seen = {}, {}
  for name in string.gmatch(indexText or "", "%S+") do
    if not seen[name] then
      seen[name] = true
      names[#names + 1] = name
    end
  end
  return names
end

local function scheduleIndexText(names)
  return table.concat(names, " ")
end

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
