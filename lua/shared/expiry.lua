--[[
  Put by the loader (lib/scripts/script-files.ts) before each script that expires messages
  (receiveMessage, popMessage, sweepExpired), after refused-command.lua, whose refusedCommand it
  calls. Its Redis calls touch only the keys its functions are given, which each script takes
  from its KEYS: the key check (test/scripts/lua-keys.test.ts) reads every script with the shared
  text put before it, as Redis runs it.

  Retention (docs/retention.md). A message is expired when the server's time minus its send time
  (its id's first 10 characters, microseconds since the epoch in base36, as rsmq 0.12.4 and
  rsmq-next write them) is at least the queue's `retention` in seconds. With no expireTo,
  expireMessages deletes the messages with every field of theirs and counts them in
  `totalexpired`; with one it parks them (hidden for PARK_MS, the two-step move's HOLD_MS) and
  reports them, since the target queue's keys are not the script's: the client moves them
  (lib/retention/expired-moves.ts) and counts them then. `report` is { deleted, target or "",
  id1, body1, rc1, ... }.
]]
local rcall = redis.call
local unpackAll = table.unpack or unpack

local EXPIRE_PER_CALL = 100
local PARK_MS = 60000

local function isExpired(id, nowMs, retention)
  local sentUs = tonumber(string.sub(id, 1, 10), 36)
  return sentUs ~= nil and #id == 32 and nowMs * 1000 - sentUs >= retention * 1000000
end

local function expireMessages(queueSet, queueHash, ids, expireTo, nowMs, report)
  if #ids == 0 then
    return
  end
  local refused = refusedCommand("zadd", "hmget", "zrem", "hdel", "hincrby")
  if refused then
    return refused
  end
  if expireTo then
    local parkUntil = string.format("%d", nowMs + PARK_MS)
    local hides, fields = {}, {}
    for i, id in ipairs(ids) do
      hides[2 * i - 1] = parkUntil
      hides[2 * i] = id
      fields[2 * i - 1] = id
      fields[2 * i] = id .. ":rc"
    end
    rcall("ZADD", queueSet, unpackAll(hides))
    local stored = rcall("HMGET", queueHash, unpackAll(fields))
    for i, id in ipairs(ids) do
      report[#report + 1] = id
      report[#report + 1] = stored[2 * i - 1]
      report[#report + 1] = tonumber(stored[2 * i] or "0")
    end
    return
  end
  local fields = {}
  for _, id in ipairs(ids) do
    fields[#fields + 1] = id
    fields[#fields + 1] = id .. ":rc"
    fields[#fields + 1] = id .. ":fr"
    fields[#fields + 1] = id .. ":dl"
    fields[#fields + 1] = id .. ":tp"
    fields[#fields + 1] = id .. ":at"
  end
  rcall("ZREM", queueSet, unpackAll(ids))
  rcall("HDEL", queueHash, unpackAll(fields))
  rcall("HINCRBY", queueHash, "totalexpired", #ids)
  report[1] = report[1] + #ids
  return nil
end

local function takeLiveDue(queueSet, queueHash, nowMs, count, withScores, retention, expireTo, report)
  local now = string.format("%d", nowMs)
  local ids, scores, budget, bounded = {}, {}, EXPIRE_PER_CALL, false
  local want = count
  while #ids < count do
    local page
    if withScores then
      page = rcall("ZRANGEBYSCORE", queueSet, "-inf", now, "WITHSCORES", "LIMIT", string.format("%d", #ids), string.format("%d", want))
    else
      page = rcall("ZRANGEBYSCORE", queueSet, "-inf", now, "LIMIT", string.format("%d", #ids), string.format("%d", want))
    end
    local step = withScores and 2 or 1
    local expired = {}
    for i = 1, #page, step do
      local id = page[i]
      if isExpired(id, nowMs, retention) then
        if #expired < budget then
          expired[#expired + 1] = id
        else
          bounded = true
        end
      elseif #ids < count and not bounded then
        -- Once this page's expired ones have left the due range, the live ones taken so far are
        -- the first ranks of what is due: the next page starts after them.
        ids[#ids + 1] = id
        if withScores then
          scores[#scores + 1] = page[i + 1]
        end
      end
    end
    local refused = expireMessages(queueSet, queueHash, expired, expireTo, nowMs, report)
    if refused then
      return nil, nil, refused
    end
    budget = budget - #expired
    if #expired == 0 or #page < want * step or budget <= 0 or bounded then
      break
    end
    -- More expired ones may follow: read them in one page, not one per round.
    want = count - #ids + budget
  end
  return ids, scores, nil
end
