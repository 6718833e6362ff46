--[[
  Put by the loader (lib/scripts/script-files.ts) before every script that stores a new message
  (sendMessage, sendMessageOnce; sendMessages uses newMessageId and notifySent), after now.lua,
  refused-command.lua and message-score.lua, whose serverNowMs, refusedCommand and messageScore
  it calls. Its Redis calls touch only the keys its functions are given, which each script takes
  from its KEYS.

  sendDelay(settings, length, delayArg): from HMGET vt delay maxsize (...) of the queue hash, the
    delay in seconds a new message of `length` takes (delayArg, or the queue's when ""); or nil
    and the reply code: -1 when the queue does not exist, -3 when it is longer than maxsize.
  newMessageId(randomPart): reads TIME once (serverNowMs); returns the id (the server's
    microsecond TIME in base36, 10 chars until 2085, then the 22 random chars the client drew, as
    rsmq 0.12.4 builds it), nowMs, the same time in ms, and nowUs, in us (a paced send's clock).
  storeMessage(queueSet, queueHash, id, body, carried, score, rltat, attributes, tenant, fairTag):
    ZADD with score (the caller's messageScore(nowMs, delay, priority), its sendGate's score, or
    its fairScore), HSET of the body (and `<id>:tp` = carried unless it is "", `<id>:at` =
    attributes (JSON, lib/operations/message-attributes.ts) unless it is "" or nil, with them
    `~fq:<tenant>` = fairTag when given (lua/shared/fair-score.lua), and `rltat` when given: a
    paced send's tokens, in the same command), HINCRBY totalsent 1. Returns nil, or, writing nothing, the NOPERM reply of
    refusedCommand("hset", "hincrby") (a caller that writes before it checks those too). The
    caller checks maxsize.
  notifySent(queueSet, channel, sharded, id): the realtime notification (ZCARD, then SPUBLISH
    when sharded, falling back to PUBLISH before Redis 7, else PUBLISH). Returns the script's
    reply: id, or { id, error, command } when Redis refused a command (an ACL user without the
    channel); the message is stored all the same. Call it only when channel is not "".
  notifyMode(kind): from the client's kind argument ("", "sharded", "wake", "wake-sharded"),
    whether the notification is a wake (else rsmq's realtime one) and whether it is sharded.
  wakeWanted(queueSet, nowMs, dueMs): called before the message is stored, whether a message due
    at dueMs needs a wake: when no message is visible now and none is due before it. Sleeping
    consumers then sleep until the earliest score they saw (or their cap), so only a message due
    sooner changes what they should do; while a message is visible they are busy with the queue,
    or take it at their next look, and a wake would tell them nothing. When Redis refuses the
    look (an ACL user without ZRANGE) the answer is yes: a wake too many costs a look, one too
    few a message's lateness.
  notifyWake(channel, sharded, id): publishes `id` on the queue's wake channel, as notifySent
    publishes (SPUBLISH when sharded...). Returns what notifySent returns.
]]
local function sendDelay(settings, length, delayArg)
  if not (settings[1] and settings[2] and settings[3]) then
    return nil, -1
  end
  -- 0: a length the client left off, at most 1024, the smallest maxsize (no need to read it).
  if length > 0 then
    local maxsize = tonumber(settings[3])
    if maxsize ~= -1 and length > maxsize then
      return nil, -3
    end
  end
  if delayArg ~= "" then
    return tonumber(delayArg)
  end
  return tonumber(settings[2])
end

-- 36^9 and 36^10: a microsecond stamp in between has exactly 10 base36 digits (1972 to 2085).
local TEN_DIGITS_FROM, TEN_DIGITS_BELOW = 101559956668416, 3656158440062976

local function newMessageId(randomPart)
  local nowMs, seconds, micros = serverNowMs()
  -- Below 2^53, so exact both as a Lua 5.1 double and as a Lua 5.4 integer.
  local stamp = seconds * 1000000 + micros
  local nowUs = stamp
  -- Lower-case base36, most significant digit first, made into one string by one string.char.
  -- (stamp - d) / 36 is a whole number below 2^53, so exact without math.floor; ten digits as
  -- locals, with no table: each C call and each table costs the server more than the arithmetic.
  if stamp >= TEN_DIGITS_FROM and stamp < TEN_DIGITS_BELOW then
    local d10 = stamp % 36
    stamp = (stamp - d10) / 36
    local d9 = stamp % 36
    stamp = (stamp - d9) / 36
    local d8 = stamp % 36
    stamp = (stamp - d8) / 36
    local d7 = stamp % 36
    stamp = (stamp - d7) / 36
    local d6 = stamp % 36
    stamp = (stamp - d6) / 36
    local d5 = stamp % 36
    stamp = (stamp - d5) / 36
    local d4 = stamp % 36
    stamp = (stamp - d4) / 36
    local d3 = stamp % 36
    stamp = (stamp - d3) / 36
    local d2 = stamp % 36
    local d1 = (stamp - d2) / 36
    return string.char(
      d1 < 10 and 48 + d1 or 87 + d1,
      d2 < 10 and 48 + d2 or 87 + d2,
      d3 < 10 and 48 + d3 or 87 + d3,
      d4 < 10 and 48 + d4 or 87 + d4,
      d5 < 10 and 48 + d5 or 87 + d5,
      d6 < 10 and 48 + d6 or 87 + d6,
      d7 < 10 and 48 + d7 or 87 + d7,
      d8 < 10 and 48 + d8 or 87 + d8,
      d9 < 10 and 48 + d9 or 87 + d9,
      d10 < 10 and 48 + d10 or 87 + d10
    ) .. randomPart, nowMs, nowUs
  end
  -- Any other length: digit by digit. (unpack is table.unpack on Lua 5.4.)
  local codes, first = {}, 17
  repeat
    local d = stamp % 36
    first = first - 1
    codes[first] = d < 10 and 48 + d or 87 + d
    stamp = math.floor(stamp / 36)
  until stamp == 0
  return string.char((table.unpack or unpack)(codes, first, 16)) .. randomPart, nowMs, nowUs
end

local function storeMessage(queueSet, queueHash, id, body, carried, score, rltat, attributes, tenant, fairTag)
  local refused = refusedCommand("hset", "hincrby")
  if refused then
    return refused
  end
  redis.call("ZADD", queueSet, score, id)
  if attributes and attributes ~= "" then
    -- The fields in one HSET; a table only here, where the send carries attributes anyway.
    local fields = { id, body, id .. ":at", attributes }
    if carried ~= "" then
      fields[#fields + 1] = id .. ":tp"
      fields[#fields + 1] = carried
    end
    if rltat then
      fields[#fields + 1] = "rltat"
      fields[#fields + 1] = rltat
    end
    -- A tenant is an attribute: its tag goes only with attributes.
    if fairTag then
      fields[#fields + 1] = "~fq:" .. tenant
      fields[#fields + 1] = fairTag
    end
    redis.call("HSET", queueHash, (table.unpack or unpack)(fields))
  elseif rltat then
    if carried == "" then
      redis.call("HSET", queueHash, id, body, "rltat", rltat)
    else
      redis.call("HSET", queueHash, id, body, id .. ":tp", carried, "rltat", rltat)
    end
  elseif carried == "" then
    redis.call("HSET", queueHash, id, body)
  else
    redis.call("HSET", queueHash, id, body, id .. ":tp", carried)
  end
  -- A string: Redis formats a Lua number argument with snprintf("%.17g"), which costs more than
  -- the HINCRBY itself.
  redis.call("HINCRBY", queueHash, "totalsent", "1")
  return nil
end

-- The message is stored: a refused notification must not fail the send, so pcall.
local function publishFor(id, channel, sharded, payload)
  local published, command
  if sharded then
    command = "SPUBLISH"
    published = redis.pcall("SPUBLISH", channel, payload)
    -- Before Redis 7 there is no SPUBLISH: PUBLISH reaches the same subscribers there.
    if type(published) == "table" and published.err and string.find(published.err, "nknown") then
      command = "PUBLISH"
      published = redis.pcall("PUBLISH", channel, payload)
    end
  else
    command = "PUBLISH"
    published = redis.pcall("PUBLISH", channel, payload)
  end
  if type(published) == "table" and published.err then
    return { id, published.err, command }
  end
  return id
end

local function notifySent(queueSet, channel, sharded, id)
  local count = redis.pcall("ZCARD", queueSet)
  if type(count) == "table" and count.err then
    return { id, count.err, "ZCARD" }
  end
  return publishFor(id, channel, sharded, count)
end

local function notifyMode(kind)
  return kind == "wake" or kind == "wake-sharded", kind == "sharded" or kind == "wake-sharded"
end

local function wakeWanted(queueSet, nowMs, dueMs)
  -- "0" and not 0: Redis formats a Lua number argument with snprintf("%.17g"), which costs more
  -- than the ZRANGE itself. (ZRANGE and not a cheaper ZCOUNT: the producer ACL lines of
  -- docs/acl.md grant +zrange, and a refused look would mean a wake on every send.)
  local first = redis.pcall("ZRANGE", queueSet, "0", "0", "WITHSCORES")
  if first.err or first[2] == nil then
    return true
  end
  local score = tonumber(first[2])
  return score > nowMs and dueMs < score
end

local function notifyWake(channel, sharded, id)
  return publishFor(id, channel, sharded, id)
end
