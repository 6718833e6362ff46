--[[
  Looks, without writing anything, whether a message is due and otherwise when the next one will
  be: the read-only half of receiveMessage, for a Worker's polls that no wake or due time
  prompted. Flagged no-writes, it answers on a full server and during CLIENT PAUSE WRITE.

  KEYS[1] queue sorted set  <ns>:<qname>
  KEYS[2] queue hash        <ns>:<qname>:Q

  Returns { nextDue } where nextDue is the milliseconds from now until the earliest message is
  visible (0: one is due now), or -1 for an empty queue. Returns -1 when the queue does not exist.

  A queue with a `retention` that holds messages, whose sweep lock is free and whose last sweep
  (`sweptat`) is SWEEP_EVERY_MS old or more, gets { nextDue, 1 }: a sweep is wanted, and the
  Worker's next look is a chunk of lua/sweepExpired-2.lua instead (docs/retention.md). Any other
  queue gets the reply it always got.

  Held back (lua/shared/queue-gate.lua): { "paused:<ms>" } while the queue is paused, and
  { "limited:<ms>:<intervalMs>" } when a message is due now but its rate limit has no token left
  or a block holds receives; the receive would take nothing then either.

  A queue with schedules that may fire (field `schednext`, docs/schedules.md) gets a third
  element, whatever the first: { first, sweep, scheduleDueMs } with sweep 1 or 0 as above and
  scheduleDueMs the ms until its earliest schedule slot (0: due now, or not yet known). A pause
  holds the messages back, not the schedules' firing.
]]
-- nextDueReply is lua/shared/next-due.lua (with serverNowMs and queueGate, which it calls), put
-- before this script by the loader: the same look lookAndBeat makes before a Worker's heartbeat.
local queueSet, queueHash = KEYS[1], KEYS[2]
return (nextDueReply(queueSet, queueHash))
