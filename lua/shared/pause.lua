--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that reads a queue's pause
  (the `paused` field of its hash: `<sinceMs>:<untilMs or empty>:<kind>`, see
  lib/operations/queue-fields.ts) or moves scores for a hard pause. It calls nothing else shared;
  its Redis calls touch only the keys and channels it is given.

  A hard pause (kind "h") adds HARD_PAUSE_OFFSET_MS to every score of the queue, so that every
  consumer, rsmq 0.12.4's included, sees nothing due; resume (kind "r" while it runs) takes it
  off again. No real score reaches SHIFTED_FROM (delays and vts are below 1e10 ms from now, and
  priority back-dating only lowers a score), so a score at or above it is a shifted one.

  pauseKind(paused): the kind of a `paused` value ("s", "h" or "r"), or nil when there is none.
  pauseOffset(paused): what a script that scores a message adds to the score it writes: the offset
    while the queue is hard-paused, else 0.
  moveScores(queueSet, shift): one chunk of at most PAUSE_CHUNK members: with shift, the lowest
    members below SHIFTED_FROM get the offset added; without, the lowest members at or above it
    get it taken off (ZADD XX: a member deleted meanwhile is not brought back). Returns how many
    it moved; fewer than PAUSE_CHUNK means none is left.
  publishControl(channel, sharded, text): publishes a control wake (`~resume:<ms>`) on the
    queue's wake channel, SPUBLISH when sharded (PUBLISH before Redis 7), by pcall: a refused
    publish never undoes the change it tells of. Returns nil, or { error, command } when refused.
]]
local HARD_PAUSE_OFFSET_MS = 100000000000000
local SHIFTED_FROM = "50000000000000"
local PAUSE_CHUNK = 1000

local function pauseKind(paused)
  if not paused then
    return nil
  end
  return string.sub(paused, -1)
end

local function pauseOffset(paused)
  if paused and string.sub(paused, -1) == "h" then
    return HARD_PAUSE_OFFSET_MS
  end
  return 0
end

local function moveScores(queueSet, shift)
  local page
  if shift then
    page = redis.call("ZRANGEBYSCORE", queueSet, "-inf", "(" .. SHIFTED_FROM, "LIMIT", "0", PAUSE_CHUNK, "WITHSCORES")
  else
    page = redis.call("ZRANGEBYSCORE", queueSet, SHIFTED_FROM, "+inf", "LIMIT", "0", PAUSE_CHUNK, "WITHSCORES")
  end
  if #page == 0 then
    return 0
  end
  local offset = shift and HARD_PAUSE_OFFSET_MS or -HARD_PAUSE_OFFSET_MS
  local args = { "XX" }
  for i = 1, #page, 2 do
    local movedScore = tonumber(page[i + 1]) + offset
    -- Scores are whole ms: "%d" keeps them exact (below 2^53); anything else keeps its digits.
    args[#args + 1] = movedScore == math.floor(movedScore) and string.format("%d", movedScore) or string.format("%.17g", movedScore)
    args[#args + 1] = page[i]
  end
  redis.call("ZADD", queueSet, (table.unpack or unpack)(args))
  return math.floor(#page / 2)
end

local function publishControl(channel, sharded, text)
  local command, published = "PUBLISH", nil
  if sharded then
    command = "SPUBLISH"
    published = redis.pcall("SPUBLISH", channel, text)
    if type(published) == "table" and published.err and string.find(published.err, "nknown") then
      command = "PUBLISH"
      published = redis.pcall("PUBLISH", channel, text)
    end
  else
    published = redis.pcall("PUBLISH", channel, text)
  end
  if type(published) == "table" and published.err then
    return { published.err, command }
  end
  return nil
end
