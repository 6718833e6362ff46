--[[
  Receives up to `count` due messages, hiding each for vt seconds, in score order (FIFO among
  equally-due messages). When fewer than `count` were due it also tells when the next message
  will be: the earliest score in the set covers delayed, retried and in-flight messages alike.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q
  KEYS[3] leases            <ns>:<qname>:leases (lua/shared/leases.lua; touched only with a
                            `concurrency` limit)
  ARGV[1] vt in seconds, or "" (or absent) for the queue's default
  ARGV[2] count (>= 1); absent for 1 (each argument costs the server a string to build, so the
          client leaves off the ones it does not need)
  ARGV[3] "d" for the details telemetry needs; "" or absent for none
  ARGV[4] the most bytes of bodies a batch returns (lib/operations/batch-bytes.ts); absent for 1

  Returns { nextDue, vt, id1, body1, rc1, fr1, at1, id2, ... } where nextDue is the milliseconds
  from now until the earliest message is visible (0 or more), -1 for an empty queue, or -2 when
  `count` messages were received and it was not looked up, and vt is the visibility timeout
  applied, in seconds; `at` is the message's attributes `<id>:at` (JSON, false: none), written by
  a send with attributes (lib/operations/message-attributes.ts) or by a schedule's fire
  (lua/fireSchedule-n.lua), rsmq 0.12.4's reply being the first four. Returns -1 when the queue
  does not exist. With details: { nextDue, vt, now, id1, body1, rc1, fr1, at1, score1, tp1, id2,
  ... }: the server's ms, and per message the score it had when taken (when it became visible)
  and its trace context `<id>:tp` (false: none).

  With a `retention` (docs/retention.md) it never returns an expired message: the due ones it
  meets on the way are deleted or parked in the same call, at most EXPIRE_PER_CALL of them (see
  takeLiveDue in lua/shared/expiry.lua), and the reply then ends with one more element, a table
  { deleted, target or "", id1, body1, rc1, ... } of what was expired (the ids of those parked
  for the client to move to `target`). A queue with no retention gets the same reply as before.

  A batch stops before the message that would take its bodies and their attributes past ARGV[4]
  bytes (the first message is always taken, however long): a message it does not return it neither hides nor
  counts, and the next is then due now (nextDue 0). Bodies are read in slices that the queue's
  maxsize keeps within what is left of the bound (a UTF-16 unit is at most 3 bytes), then counted
  exactly, so a message longer than maxsize (a maxsize lowered later) is cut all the same.

  With a concurrency limit (setConcurrency) the first element may be `maxed:<ms>`: held at the
  limit with a message due, or a batch cut by it while more was due (lua/shared/receive-due.lua).

  The work is receiveDue (lua/shared/receive-due.lua, shared with deleteAndReceive), which also
  sweeps the orphan fields an rsmq 0.12.4 delete leaves when it finds the queue empty.
]]
-- receiveDue is lua/shared/receive-due.lua, which the loader puts before this script (with the
-- shared Lua it calls: serverNowMs, refusedCommand, takeLiveDue).
local queueSet, queueHash, leasesKey = KEYS[1], KEYS[2], KEYS[3]
local flags = ARGV[3] or ""
return (receiveDue(queueSet, queueHash, leasesKey, ARGV[1] or "", tonumber(ARGV[2] or "1"), flags == "d", tonumber(ARGV[4] or "")))
