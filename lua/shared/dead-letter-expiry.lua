--[[
  Put by the loader (lib/scripts/script-files.ts) before the scripts that write a message into a
  dead-letter queue (deadLetter, deadLetterCopy). Its Redis call touches only the key it is given,
  which each script takes from its KEYS.

  A dead-letter queue with a `retention` and no `expireto` is a capped audit of failures
  (docs/retention.md): each move also deletes the expired ones among its first DLQ_TRIM members by
  rank (age from the original send: the id's time), so a dead-letter queue nobody reads stays
  bounded at no extra command.

  expiredHead(deadSet, retention, nowUs): those of the first DLQ_TRIM members that are at least
  `retention` seconds old at nowUs (the server's time in microseconds); none when retention <= 0.
  It only reads (ZRANGE): a script calls it before its first write, and deletes what it found last.
]]
local DLQ_TRIM = 10

local function expiredHead(deadSet, retention, nowUs)
  local expired = {}
  if retention <= 0 then
    return expired
  end
  for _, member in ipairs(redis.call("ZRANGE", deadSet, 0, string.format("%d", DLQ_TRIM - 1))) do
    local sentUs = tonumber(string.sub(member, 1, 10), 36)
    if sentUs ~= nil and #member == 32 and nowUs - sentUs >= retention * 1000000 then
      expired[#expired + 1] = member
    end
  end
  return expired
end
