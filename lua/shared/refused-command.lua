--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that calls refusedCommand,
  so the scripts stay standalone files with their own KEYS/ARGV headers while this lives once.

  refusedCommand(name, ...): on Redis 7+, a NOPERM error reply naming the first command the user
  may not run, else nil. Redis checks each command of a script only when it is called, so one
  refused halfway would leave the writes before it: a script checks the commands it may run after
  its first write before making it. No keys are passed: Redis checks a script's declared KEYS
  against the user's key permissions when the script arrives. Before Redis 7 there is no
  redis.acl_check_cmd, and scripts behave as before.
]]
local function refusedCommand(...)
  if redis.acl_check_cmd then
    for i = 1, select("#", ...) do
      local command = select(i, ...)
      if not redis.acl_check_cmd(command) then
        return redis.error_reply("NOPERM this user has no permissions to run the '" .. command .. "' command")
      end
    end
  end
end
