--[[
  Which of the commands named in ARGV the connection's user may not run: the ScriptRunner asks
  once per connection for the commands the scripts check with refusedCommand
  (lua/shared/refused-command.lua) before their first write, and then sends a script's second
  text, in which refusedCommand does nothing (lib/scripts/script-files.ts), when none of the
  commands that script checks was refused. Needs no ACL permission beyond EVALSHA:
  redis.acl_check_cmd only reads the caller's rights.

  ARGV[1...] command names, lower case
  Returns the names the user may not run, in ARGV order: empty when it may run all of them, and
  before Redis 7 (no redis.acl_check_cmd: refusedCommand checks nothing there either).
]]
local refused = {}
if redis.acl_check_cmd then
  for i = 1, #ARGV do
    if not redis.acl_check_cmd(ARGV[i]) then
      refused[#refused + 1] = ARGV[i]
    end
  end
end
return refused
