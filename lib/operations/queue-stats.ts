/**
 * For the command line's `stats`: one read-only script call (lua/queueStats-2.lua) that reads a
 * queue's settings and counters and sorts its messages into visible, in flight and delayed, with
 * the server's clock.
 */
import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
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
  const keys = layout.queue(validateQname(qname));
  return {
    script: "queueStats",
    keys: [keys.messages, keys.hash],
    args: [integerArg(LOOK_AT_MOST)],
    parse(reply) {
      failIfCode(reply);
      const [fields, msgs, visible, inFlight, delayed, looked, nextDueMs, waitingMs] = reply as [Array<string | null>, ...number[]];
      const int = (index: number): number => parseInt(fields[index] ?? "0", 10) || 0;
      return {
        qname,
        vt: int(0),
        delay: int(1),
        maxsize: int(2),
        totalrecv: int(3),
        totalsent: int(4),
        created: int(5),
        modified: int(6),
        msgs,
        visible,
        inFlight,
        delayed,
        partial: looked < msgs - visible,
        nextDueMs: nextDueMs < 0 ? null : nextDueMs,
        waitingMs: waitingMs < 0 ? null : waitingMs,
      };
    },
  };
}
