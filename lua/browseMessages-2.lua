--[[
  One page of browseMessages (lib/operations/browse-messages.ts): a queue's messages in receive order
  (score, then id) from just after a cursor, kept when their attributes equal every value of a
  `where` and their state is the one asked for. Nothing is written: no score, receive count or
  counter changes. It looks at no more than ARGV[4] members (and ARGV[5] bytes of attributes), so
  no call is long whatever matches, and answers where it stopped: a page may hold fewer matches
  than asked for, none at all, and still not be the end.

  The cursor is keyset, not a rank: the first member after (score, id) is found by ZCOUNT and a
  binary search among the members of that score, so a message that stays where it is is listed
  exactly once while others are received, deleted or sent between pages.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] the cursor's score ("": from the start)   ARGV[2] the cursor's id ("": from the start)
  ARGV[3] most messages to answer (>= 1)           ARGV[4] most members to look at (>= 1)
  ARGV[5] most bytes of `<id>:at` JSON to decode    ARGV[6] most bytes of bodies to answer (as cut)
  ARGV[7] the `where` JSON ({name: value}, bytes as {"b64": ...}; "": keep every message)
  ARGV[8] the state to keep: "visible", "inFlight", "delayed" or "" (every one)
  ARGV[9] most bytes of each body to answer (0: the whole body)

  Returns { nowMs, msgs, looked, nextScore, nextId, id1, body1, size1, score1, rc1, fr1, why1, at1,
  id2, ... }: the server's time (epoch ms), the number of messages, how many members this call
  looked at, the cursor to go on from (false, false: the end of the queue), then per message its id,
  body (cut to ARGV[9] bytes), body length in bytes, score, receive count ("0": never), first
  receive (false: never), `<id>:dl` JSON (false: none) and `<id>:at` JSON (false: none). Returns -1
  when the queue does not exist.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
local afterScore, afterId = ARGV[1], ARGV[2]
local wanted, mostLooks, mostAtBytes = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local mostBodyBytes, state, cutAt = tonumber(ARGV[6]), ARGV[8], tonumber(ARGV[9])

if rcall("HEXISTS", queueHash, "vt") == 0 then
  return -1
end
-- serverNowMs() is lua/shared/now.lua, which the loader puts before this script.
local nowMs = serverNowMs()
local total = rcall("ZCARD", queueSet)

-- Byte order, as Redis orders members of one score (Lua's `<` on strings follows the locale).
local function bytesAfter(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x > y
    end
  end
  return #a > #b
end

-- The rank of the first member after (afterScore, afterId): past the lower scores, then a binary
-- search among the members of that very score (few: a batch's entries share one).
local start = 0
if afterId ~= "" then
  local low = rcall("ZCOUNT", queueSet, "-inf", "(" .. afterScore)
  local high = rcall("ZCOUNT", queueSet, "-inf", afterScore)
  while low < high do
    local middle = math.floor((low + high) / 2)
    local member = rcall("ZRANGE", queueSet, string.format("%d", middle), string.format("%d", middle))[1]
    if member and bytesAfter(member, afterId) then
      high = middle
    else
      low = middle + 1
    end
  end
  start = low
end
-- Every visible message comes before every hidden one (scores are due times): a look at the
-- hidden ones starts after the visible ones.
if state == "inFlight" or state == "delayed" then
  start = math.max(start, rcall("ZCOUNT", queueSet, "-inf", string.format("%d", nowMs)))
end

-- JSON.stringify escapes a lone surrogate (`"\ud800"`), which cjson refuses to decode: both the
-- `where` and each message's attributes get such an escape as the bytes WTF-8 gives the code unit
-- instead, which no well-formed string's UTF-8 holds, so equal values stay equal and no other
-- value becomes equal to them. A backslash run of odd length starts an escape; even, it is text.
local function decodable(json)
  return (string.gsub(json, "(\\+)u([dD][89a-fA-F]%x%x)", function(slashes, hex)
    if #slashes % 2 == 0 then
      return nil
    end
    local unit = tonumber(hex, 16)
    return string.rep("\\", #slashes - 1)
      .. string.char(0xED, 0x80 + math.floor(unit / 64) % 64, 0x80 + unit % 64)
  end))
end

local where = nil
if ARGV[7] ~= "" then
  where = cjson.decode(decodable(ARGV[7]))
end

-- Whether the stored attributes (`<id>:at` JSON, its user attributes under `a`) hold every value of `where`.
local function matches(atJson)
  if not atJson then
    return false
  end
  local ok, stored = pcall(cjson.decode, decodable(atJson))
  if not ok or type(stored) ~= "table" or type(stored.a) ~= "table" then
    return false
  end
  for name, value in pairs(where) do
    local have = stored.a[name]
    if type(value) == "table" then
      if type(have) ~= "table" or have.b64 ~= value.b64 then
        return false
      end
    elseif type(have) ~= type(value) or have ~= value then
      return false
    end
  end
  return true
end

local reply = { string.format("%d", nowMs), total, 0, false, false }
local entries = rcall("ZRANGE", queueSet, string.format("%d", start), string.format("%d", start + mostLooks - 1), "WITHSCORES")
local looked, found, atBytes, bodyBytes = 0, 0, 0, 0
local lastScore, lastId = false, false
local stopped = false
-- messageFields and appendMessage are lua/shared/browsed-message.lua, which the loader puts before this script.
for i = 1, #entries, 2 do
  local id, score = entries[i], entries[i + 1]
  local due = tonumber(score) <= nowMs
  if state == "visible" and not due then
    -- Past the visible ones: nothing further can match.
    lastScore, lastId = false, false
    looked = looked + 1
    stopped = "end"
    break
  end
  local keep = state == "" or (state == "visible") == due
  local fields = nil
  if keep and state ~= "visible" and state ~= "" then
    -- Hidden: received (inFlight) or never received (delayed).
    local rc = tonumber(rcall("HGET", queueHash, id .. ":rc") or "0") or 0
    keep = (state == "inFlight") == (rc > 0)
  end
  if keep and where then
    local atJson = rcall("HGET", queueHash, id .. ":at")
    if atJson then
      atBytes = atBytes + #atJson
    end
    keep = matches(atJson)
  end
  if keep then
    fields = messageFields(queueHash, id)
    local body = fields[1] or ""
    -- The bytes this reply carries: a body cut to ARGV[9] counts as cut.
    local answered = #body
    if cutAt > 0 and answered > cutAt then
      answered = cutAt
    end
    if found > 0 and bodyBytes + answered > mostBodyBytes then
      -- This one is for the next page: the cursor stays before it.
      stopped = "full"
      break
    end
    bodyBytes = bodyBytes + answered
    found = found + 1
    appendMessage(reply, id, fields, score, cutAt, true)
  end
  looked = looked + 1
  lastScore, lastId = score, id
  if found >= wanted or atBytes >= mostAtBytes then
    stopped = "full"
    break
  end
end

reply[3] = looked
-- The first match is always answered, so a call that stops has looked at one member at least.
if stopped ~= "end" and lastId and start + looked < total then
  reply[4], reply[5] = lastScore, lastId
end
return reply
