--[[
  One chunk of the doctor's pass over a queue's sorted set (ZSCAN), without writing anything: the
  members whose body is absent from the hash, which an rsmq 0.12.4 receive would hand to user
  code as `message: null`.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  ARGV[1] ZSCAN cursor ("0" to start)
  ARGV[2] ZSCAN COUNT

  Returns { nextCursor, member1, member2, ... }. nextCursor "0": the pass is done.
]]
local rcall = redis.call
local queueSet, queueHash = KEYS[1], KEYS[2]

local page = rcall("ZSCAN", queueSet, ARGV[1], "COUNT", ARGV[2])
local reply = { page[1] }
local entries = page[2]
for i = 1, #entries, 2 do
  if rcall("HEXISTS", queueHash, entries[i]) == 0 then
    reply[#reply + 1] = entries[i]
  end
end
return reply
