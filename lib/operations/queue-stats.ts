/**
 * For the command line's `stats`: one read-only script call (lua/queueStates-n.lua, the
 * dashboard's reading, for one queue) that reads a queue's settings and counters and sorts its
 * messages into visible, in flight and delayed, with the server's clock.
 */
import type { Operation } from "./operation";
import { queueStates } from "./queue-states";
import type { QueueCounts } from "./queue-states";
import { queueNotFound } from "../errors/rsmq-errors";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";

/** The most hidden messages the script looks at one by one (a script blocks Redis while it runs). */
export const LOOK_AT_MOST = 10_000;

export interface QueueStats extends QueueCounts {
  /** Messages in the queue. */
  msgs: number;
  /** Ms until the earliest hidden message becomes visible; null when none is hidden. */
  nextDueMs: number | null;
  /** Ms the earliest visible message has been waiting; null when none is visible. */
  waitingMs: number | null;
}

export function queueStats(layout: KeyLayout, qname: string): Operation<QueueStats> {
  const reading = queueStates(layout, [validateQname(qname)], false, LOOK_AT_MOST);
  return {
    ...reading,
    parse(reply) {
      const { now, queues } = reading.parse(reply);
      const state = queues[0];
      if (!state) throw queueNotFound();
      const { total, nextDueAt, headDueAt, headSentAt, dueWithin, ...counts } = state;
      return {
        ...counts,
        qname,
        msgs: total,
        nextDueMs: nextDueAt === null ? null : nextDueAt - now,
        waitingMs: headDueAt === null ? null : now - headDueAt,
      };
    },
  };
}
