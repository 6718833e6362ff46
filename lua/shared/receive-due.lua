--[[
  Put by the loader (lib/scripts/script-files.ts) before each script that receives (receiveMessage,
  deleteAndReceive), after now.lua, refused-command.lua and expiry.lua, whose functions it calls.
  Its Redis calls touch only the two keys it is given, which each script takes from its KEYS.

  receiveDue(queueSet, queueHash, leasesKey, vtArg, count, details, maxBytes):
  receives up to `count` due messages of the queue, as lua/receiveMessage-3.lua's header says (its
  ARGV, read: vtArg "" for the queue's vt, details true for "d", maxBytes nil for no bound), each
  with its attributes `<id>:at` (read in the HMGET that reads its body), and returns that
  script's reply: -1 for a missing queue, a NOPERM error reply when the user may not write what a
  receive writes (nothing written then), or the reply table; then, under a concurrency limit, how
  many slots it left free (nil without one): deleteAndReceive announces a slot its deletes freed
  only when one is left.

  An empty queue (no member in the sorted set) holds no message, so any per-message field left in
  its hash is an orphan: an rsmq 0.12.4 delete or pop removes only `<id>`, `<id>:rc` and
  `<id>:fr`, and leaves `<id>:tp`, `<id>:dl` and `<id>:at`. A receive that finds the queue empty removes up
  to SWEEP_FIELDS of them (see sweepOrphans): bounded work, no extra command, and skipped for a
  user that may not run HSCAN or HDEL.

  A pause, a rate limit or a block (lua/shared/queue-gate.lua, fields read in the same HMGET as
  the settings) holds the receive back: the reply's first element is then `paused:<ms>` or
  `limited:<ms>:<intervalMs>` in place of the next due time, and nothing is written; a limit that
  allows fewer than `count` cuts the batch, whose tokens are spent in the HSET of its first
  receives (field `rltat`), and a batch so cut while more was due says `limited:...` too.

  A queue with a `concurrency` limit (lua/shared/leases.lua) comes after them: a receive with a
  vt takes at most the free slots and leases what it takes (the leases key each script hands
  over). Held with a message due, or a batch cut while more was due: the first element is
  `maxed:<ms>` and `maxed` is set in the hash (so the delete that frees a slot publishes
  `~free:`). A queue without the field never touches the leases key; a vt-0 receive puts
  nothing in flight and is not limited.

  Every read comes before the first write, so a command refused there (ACL) leaves nothing behind
  and only the writes after the first need checking. A batch's writes are one command each where
  Redis allows it (one ZADD, one HINCRBY of totalrecv, one HSET of the first receives): each
  command a script calls costs the server more than the Lua around it. One message takes the
  same steps without the argument tables, which would cost it more than they save.
]]
local rcall = redis.call
local unpackAll = table.unpack or unpack

-- How many fields one sweep looks at, at most: bounded work on a hash of any size.
local SWEEP_FIELDS = 200
local ORPHAN_SUFFIXES = { rc = true, fr = true, tp = true, dl = true, at = true }

local function sweepOrphans(queueHash)
  if refusedCommand("hscan", "hdel") then
    return
  end
  local cursor, looked, orphans = "0", 0, {}
  repeat
    local page = rcall("HSCAN", queueHash, cursor, "COUNT", "100")
    cursor = page[1]
    local entries = page[2]
    for i = 1, #entries, 2 do
      local suffix = string.match(entries[i], "^%w+:(%a%a)$")
      if suffix and ORPHAN_SUFFIXES[suffix] then
        orphans[#orphans + 1] = entries[i]
      elseif string.sub(entries[i], 1, 4) == "~fq:" then
        -- A tenant's fair tag (lua/shared/fair-score.lua): with nothing waiting, every tag is
        -- below the next send's head, so none says anything any more.
        orphans[#orphans + 1] = entries[i]
      end
    end
    looked = looked + #entries / 2
  until cursor == "0" or looked >= SWEEP_FIELDS
  if #orphans > 0 then
    rcall("HDEL", queueHash, unpackAll(orphans))
  end
end

-- The reply of a receive the gate held back (lua/shared/queue-gate.lua) before it took anything:
-- paused, whatever is due; limited only when a message is due now, else the normal reply (the
-- queue's next due time). Nothing is written either way.
local function heldReply(queueSet, held, reply, nowMs)
  if string.byte(held, 1) == 112 then -- "p": paused
    reply[1] = held
    return reply
  end
  local head = rcall("ZRANGE", queueSet, "0", "0", "WITHSCORES")
  if head[2] == nil then
    reply[1] = -1
  else
    local dueMs = tonumber(head[2]) - nowMs
    reply[1] = dueMs <= 0 and held or dueMs
  end
  return reply
end

local function receiveDue(queueSet, queueHash, leasesKey, vtArg, count, details, maxBytes)
  local settings = rcall("HMGET", queueHash, "vt", "delay", "maxsize", "retention", "expireto", "paused", "ratelimit", "rltat", "rlblock", "concurrency", "maxed")
  if not (settings[1] and settings[2] and settings[3]) then
    return -1
  end
  local vt = tonumber(settings[1])
  if vtArg ~= "" then
    vt = tonumber(vtArg)
  end

  local nowMs, seconds, micros = serverNowMs()
  local now = string.format("%d", nowMs)
  local hiddenUntilMs = math.floor(nowMs + vt * 1000)
  local hiddenUntil = string.format("%d", hiddenUntilMs)

  local reply = { -2, vt }
  if details then
    reply[3] = nowMs
  end
  -- A pause, a rate limit or a block (queueGate) may hold the receive back or cut its count; a
  -- queue with none of them pays only the four fields of the HMGET above.
  local asked, gate = count, nil
  if settings[6] or settings[7] or settings[9] then
    local held
    count, held, gate = queueGate(settings[6], settings[7], settings[8], settings[9], nowMs, seconds, micros, count)
    if held then
      return heldReply(queueSet, held, reply, nowMs)
    end
  end
  -- The concurrency limit cuts the count to the free slots (lua/shared/leases.lua); held at 0.
  local leaseRoom, settleLeases, heal, limitCut, free = nil, nil, nil, false, nil
  if settings[10] and vt > 0 then
    local heldAtLimit
    leaseRoom, settleLeases, heldAtLimit = leaseKit()
    local room
    room, heal, free = leaseRoom(leasesKey, queueSet, tonumber(settings[10]), count, nowMs)
    limitCut = room < count
    if room == 0 then
      return heldAtLimit(queueSet, queueHash, leasesKey, heal, settings[11] == "1", reply, nowMs), 0
    end
    count = room
  end

  -- Numbers go to Redis as strings: Redis formats a Lua number argument with snprintf("%.17g"),
  -- which costs more than the command it is for.
  local countText = count == 1 and "1" or string.format("%d", count)
  local ids, scores = nil, nil
  local retention = tonumber(settings[4] or "0") or 0
  local expiry = nil
  if retention > 0 then
    local refused
    expiry = { 0, settings[5] or "" }
    ids, scores, refused = takeLiveDue(queueSet, queueHash, nowMs, count, details, retention, settings[5], expiry)
    if refused then
      return refused
    end
    if expiry[1] == 0 and #expiry == 2 then
      expiry = nil
    end
  elseif details then
    local withScores = rcall("ZRANGEBYSCORE", queueSet, "-inf", now, "WITHSCORES", "LIMIT", "0", countText)
    ids, scores = {}, {}
    for i = 1, #withScores, 2 do
      ids[#ids + 1] = withScores[i]
      scores[#scores + 1] = withScores[i + 1]
    end
  else
    ids = rcall("ZRANGEBYSCORE", queueSet, "-inf", now, "LIMIT", "0", countText)
  end

  -- Each message's body and attributes: id1, id1:at, id2, ... (then its trace context with
  -- details: id1, id1:at, id1:tp, ...), one HMGET per slice of ids. Its first-receive time is read
  -- only for a message received before (below, as rsmq 0.12.4 reads it), so the attributes take
  -- the place of a field a first receive does not need, and a receive without attributes costs
  -- what it did. One message (receiveMessage) takes the same steps without the batch's tables.
  local stored
  local width = details and 3 or 2
  if #ids == 1 and not details then
    stored = rcall("HMGET", queueHash, ids[1], ids[1] .. ":at")
  elseif #ids > 0 then
    stored = {}
    local maxsize = tonumber(settings[3])
    local taken, bytes = 0, 0
    while taken < #ids do
      local slice = #ids - taken
      if maxBytes then
        slice = 1
        if maxsize ~= -1 then
          slice = math.max(1, math.floor((maxBytes - bytes) / (3 * maxsize)))
        end
      end
      local fields = {}
      for i = taken + 1, math.min(#ids, taken + slice) do
        fields[#fields + 1] = ids[i]
        fields[#fields + 1] = ids[i] .. ":at"
        if details then
          fields[#fields + 1] = ids[i] .. ":tp"
        end
      end
      local values = rcall("HMGET", queueHash, unpackAll(fields))
      local cut = false
      for i = 1, #values, width do
        -- A message's attributes count with its body, as they do against maxsize at the send
        -- (so the slices that maxsize keeps within the bound still are).
        local body, attributes = values[i], values[i + 1]
        bytes = bytes + (body and #body or 0) + (attributes and #attributes or 0)
        if maxBytes and bytes > maxBytes and taken > 0 then
          cut = true
          break
        end
        for j = 0, width - 1 do
          stored[#stored + 1] = values[i + j]
        end
        taken = taken + 1
      end
      if cut then
        for i = #ids, taken + 1, -1 do
          ids[i] = nil
          if scores then
            scores[i] = nil
          end
        end
      end
    end
  end
  local received = #ids

  -- Fewer than `count` due means every due message is in `ids`, the first `received` by rank: the
  -- earliest score once they are hidden is that of the next by rank, or their new one, whichever
  -- comes first.
  -- A batch the limit cut (count < asked, all `count` taken) whose next message is due now says
  -- so: `limited:...`, once its tokens are spent below.
  local cut = false
  if received < asked then
    local rank = string.format("%d", received)
    local after = rcall("ZRANGE", queueSet, rank, rank, "WITHSCORES")
    local earliest = after[2] and tonumber(after[2])
    cut = received == count and earliest ~= nil and earliest <= nowMs
    limitCut = limitCut and cut
    if received > 0 and (not earliest or hiddenUntilMs < earliest) then
      earliest = hiddenUntilMs
    end
    if earliest then
      reply[1] = math.max(0, earliest - nowMs)
    else
      reply[1] = -1
    end
  end
  if received == 0 then
    if reply[1] == -1 then
      sweepOrphans(queueHash)
    end
    reply[#reply + 1] = expiry
    return reply, free
  end

  local refused = refusedCommand("hincrby", "hset")
  if not refused and leaseRoom then
    refused = refusedCommand("zadd", "zrem", "pexpire")
  end
  if refused then
    return refused
  end
  local hides
  if received == 1 then
    rcall("ZADD", queueSet, hiddenUntil, ids[1])
  else
    hides = {}
    for i, id in ipairs(ids) do
      hides[2 * i - 1] = hiddenUntil
      hides[2 * i] = id
    end
    rcall("ZADD", queueSet, unpackAll(hides))
  end
  if leaseRoom then
    settleLeases(leasesKey, heal, hides or { hiddenUntil, ids[1] }, hiddenUntilMs, nowMs)
    if limitCut then
      if settings[11] ~= "1" then
        rcall("HSET", queueHash, "maxed", "1")
      end
      -- A slot frees when the earliest in flight, these included, is visible again.
      local earliest = math.min(heal and heal.earliest or hiddenUntilMs, hiddenUntilMs)
      reply[1] = "maxed:" .. string.format("%d", math.max(0, earliest - nowMs))
    end
  end
  rcall("HINCRBY", queueHash, "totalrecv", received == 1 and "1" or string.format("%d", received))
  local firstReceives = {}
  -- A message received before: where its `fr` goes in the reply, read after the loop (one HMGET
  -- for the batch; HMGET, the script's first command, is never the one an ACL refuses).
  local frAt, frFields = nil, nil
  for i, id in ipairs(ids) do
    local rc = rcall("HINCRBY", queueHash, id .. ":rc", "1")
    reply[#reply + 1] = id
    reply[#reply + 1] = stored[width * i - width + 1]
    reply[#reply + 1] = rc
    if rc == 1 then
      reply[#reply + 1] = now
      firstReceives[#firstReceives + 1] = id .. ":fr"
    else
      reply[#reply + 1] = false
      frAt, frFields = frAt or {}, frFields or {}
      frAt[#frAt + 1] = #reply
      frFields[#frFields + 1] = id .. ":fr"
    end
    reply[#reply + 1] = stored[width * i - width + 2]
    if details then
      reply[#reply + 1] = scores[i]
      reply[#reply + 1] = stored[width * i]
    end
  end
  if frAt then
    local frs = rcall("HMGET", queueHash, unpackAll(frFields))
    for i, at in ipairs(frAt) do
      reply[at] = frs[i]
    end
  end
  if gate then
    -- The tokens spent go in the same HSET as the first receives (one command either way).
    local frPairs = {}
    for i, field in ipairs(firstReceives) do
      frPairs[2 * i - 1] = field
      frPairs[2 * i] = now
    end
    local spent, wait = gate.spend(received, cut and not limitCut)
    frPairs[#frPairs + 1] = "rltat"
    frPairs[#frPairs + 1] = spent
    rcall("HSET", queueHash, unpackAll(frPairs))
    if wait then
      reply[1] = wait
    end
  elseif #firstReceives == 1 then
    rcall("HSET", queueHash, firstReceives[1], now)
  elseif #firstReceives > 1 then
    local frPairs = {}
    for i, field in ipairs(firstReceives) do
      frPairs[2 * i - 1] = field
      frPairs[2 * i] = now
    end
    rcall("HSET", queueHash, unpackAll(frPairs))
  end
  reply[#reply + 1] = expiry
  return reply, free and free - received
end
