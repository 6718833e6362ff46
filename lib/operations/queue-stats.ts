/**
 * For the command line's `stats`: one read-only script call (lua/queueStates-n.lua, the
 * dashboard's reading, for one queue) that reads a queue's settings and counters and sorts its
 * messages into visible, in flight and delayed, with the server's clock.
 */
import type { Operation } from "./operation";
import { queueStates } from "./queue-states";
import { queueNotFound } from "../errors/rsmq-errors";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";

/** The most hidden messages the script looks at one by one (a script blocks Redis while it runs). */
export const LOOK_AT_MOST = 10_000;

export interface QueueStats {
  qname: string;
  vt: number;
  delay: number;
  maxsize: number;
  totalsent: number;
  totalrecv: number;
  /** Epoch seconds. */
  created: number;
  modified: number;
  /** Messages in the queue. */
  msgs: number;
  /** Due now. */
  visible: number;
  /** Received and hidden: being handled, or waiting for a retry. */
  inFlight: number;
  /** Sent with a delay and not due yet. */
  delayed: number;
  /** True when more than LOOK_AT_MOST messages were hidden: inFlight and delayed cover the earliest only. */
  partial: boolean;
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
      return {
        qname,
        vt: state.vt,
        delay: state.delay,
        maxsize: state.maxsize,
        totalrecv: state.totalrecv,
        totalsent: state.totalsent,
        created: state.created,
        modified: state.modified,
        msgs: state.total,
        visible: state.visible,
        inFlight: state.inFlight,
        delayed: state.delayed,
        partial: state.partial,
        nextDueMs: state.nextDueAt === null ? null : state.nextDueAt - now,
        waitingMs: state.headDueAt === null ? null : now - state.headDueAt,
      };
    },
  };
}
