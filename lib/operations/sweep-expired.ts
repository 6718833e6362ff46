/**
 * One chunk of a sweep of a queue's expired messages (lua/sweepExpired-2.lua): bounded work, under
 * the queue's sweep lock, and the same answer as the idle look (when the next message is due), so
 * a Worker's idle tick can be a chunk and still cost one command.
 */
import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import { toExpiredReport } from "../retention/expired-report";
import type { ExpiredReport } from "../retention/expired-report";

/** Where a pass stands after a chunk. */
export type SweepState = "done" | "more" | "busy";

export interface SweepChunk {
  /** Ms until the earliest message is visible (0: due now); null for an empty queue. */
  nextDueMs: number | null;
  /** `done`: the pass ended and the lock is released; `more`: pass `next` back; `busy`: another sweeper holds the lock. */
  state: SweepState;
  /** The rank the next chunk starts at. */
  next: number;
  expired: ExpiredReport;
}

const STATES: readonly SweepState[] = ["done", "more", "busy"];
const EMPTY_QUEUE = -1;

/** A chunk of `qname`'s sweep by the sweeper `token`, from rank `cursor`; the lock holds `lockMs` without a next chunk. */
export function sweepExpiredChunk(layout: KeyLayout, qname: unknown, token: string, cursor: number, lockMs: number): Operation<SweepChunk> {
  const keys = layout.queue(validateQname(qname));
  return {
    script: "sweepExpired",
    keys: [keys.messages, keys.hash],
    args: [token, integerArg(cursor), integerArg(lockMs)],
    parse(reply) {
      failIfCode(reply);
      const [nextDue, state, next, expired] = reply as unknown[];
      const ms = Number(nextDue);
      return {
        nextDueMs: ms === EMPTY_QUEUE ? null : ms,
        state: STATES[Number(state)] ?? "done",
        next: Number(next),
        expired: toExpiredReport(Array.isArray(expired) ? expired : []),
      };
    },
  };
}
