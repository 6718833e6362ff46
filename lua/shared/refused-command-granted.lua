--[[
  Put by the loader (lib/scripts/script-files.ts), in place of refused-command.lua, in the second
  text of each script that calls refusedCommand: the text the runner sends while its cached check
  (lua/commandsRefused-0.lua) says the connection's user may run every command the script's
  refusedCommand calls name, so none of them can be refused and the per-command ACL lookups are
  saved. Same name and calls: the scripts themselves are the same text.
]]
local function refusedCommand()
  return nil
end
