--[[
  One chunk of the doctor's pass over a queue's hash (HSCAN), without writing anything: each field
  that is neither one of the queue's own (ARGV[3..]) nor a message that is in place.
  - `<id>:<anything>` (id: 32 characters of [A-Za-z0-9]) whose `<id>` is absent: a message's
    field without its message, as rsmq 0.12.4's delete and pop leave `:dl`, `:tp` and `:at`;
  - `<id>` with no member in the sorted set: a body no receive can reach;
  - anything else: a field that is not rsmq's, nor rsmq-next's. A Worker's heartbeat entry
    `~w:<workerId>` is rsmq-next's (lua/lookAndBeat-2.lua): not reported, listed or stale alike
    (the next beat sweeps a stale one). So is a schedule `~sched:<name>` (lua/upsertSchedule-2.lua).
  - a tenant's fair tag `~fq:<tenant>` (lua/shared/fair-score.lua) below every level's head
    (fairStaleBelow, lua/shared/fair-stale.lua): no send reads it any more. A live one is not
    reported.
  Bodies are not returned: the reply stays small whatever the messages hold.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] HSCAN cursor ("0" to start)
  ARGV[2] HSCAN COUNT
  ARGV[3..] the fields of the hash that are not messages (QUEUE_FIELDS)

  Returns { nextCursor, kind1, field1, kind2, field2, ... }; kind is fieldWithoutMessage,
  bodyWithoutMember, staleFairTag or unknownField. nextCursor "0": the pass is done.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]
-- fairStaleBelow(...) is lua/shared/fair-stale.lua, which the loader puts before this script.
local ID = string.rep("%w", 32)

local known = {}
for i = 3, #ARGV do
  known[ARGV[i]] = true
end

local page = rcall("HSCAN", queueHash, ARGV[1], "COUNT", ARGV[2])
local reply = { page[1] }
local entries = page[2]
local function found(kind, field)
  reply[#reply + 1] = kind
  reply[#reply + 1] = field
end
-- Looked for once per chunk, and only when the chunk holds a tag.
local staleBelow
for i = 1, #entries, 2 do
  local field = entries[i]
  if string.sub(field, 1, 4) == "~fq:" then
    staleBelow = staleBelow or fairStaleBelow(queueSet)
    if (tonumber(entries[i + 1]) or staleBelow - 1) < staleBelow then
      found("staleFairTag", field)
    end
  elseif not known[field] and string.sub(field, 1, 3) ~= "~w:" and string.sub(field, 1, 7) ~= "~sched:" then
    local owner = string.match(field, "^(" .. ID .. "):.+$")
    if owner then
      if rcall("HEXISTS", queueHash, owner) == 0 then
        found("fieldWithoutMessage", field)
      end
    elseif string.match(field, "^" .. ID .. "$") then
      if not rcall("ZSCORE", queueSet, field) then
        found("bodyWithoutMember", field)
      end
    else
      found("unknownField", field)
    end
  end
end
return reply
