--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that reads or writes a
  queue's schedules. The schedules of a queue live in its `:Q` hash (lib/operations/
  queue-fields.ts): `~sched:<name>` holds one schedule as JSON (lua/upsertSchedule-2.lua lists its
  keys), and `schedules` lists the names, space-separated, like `consumers`.

  scheduleNames(indexText): the names `schedules` lists (its HMGET value, or nil), in order,
    each once.
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
