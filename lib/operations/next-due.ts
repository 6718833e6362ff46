import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import { parseReceiveBlock } from "./receive-block";
import type { ReceiveBlock } from "./receive-block";

const EMPTY_QUEUE = -1;

/**
 * Whether a message is due: ms until the earliest message is visible (0: due now), null for an
 * empty queue, or the block that would hold a receive back (a pause; a rate limit or a block when
 * a message is due now: see lua/nextDue-2.lua). Read-only, so it answers during a write pause and
 * on a full server.
 */
export function nextDue(layout: KeyLayout, qname: unknown): Operation<number | null | ReceiveBlock> {
  const keys = layout.queue(validateQname(qname));
  return {
    script: "nextDue",
    commandKind: "look",
    keys: [keys.messages, keys.hash],
    args: [],
    parse(reply) {
      failIfCode(reply);
      const first = (reply as unknown[])[0];
      const blocked = parseReceiveBlock(first);
      if (blocked) return blocked;
      const ms = Number(first);
      return ms === EMPTY_QUEUE ? null : ms;
    },
  };
}

/**
 * What the Worker's idle look reads: nextDue's answer, whether the queue wants a sweep
 * (docs/retention.md), and when its schedules next fire (docs/schedules.md).
 */
export interface IdleLook {
  /** As nextDue resolves: ms until a message is due, null for an empty queue, or the block that holds receives back. */
  nextDueMs: number | null | ReceiveBlock;
  /** The queue has a retention and messages, its sweep lock is free and its last sweep a minute old or more. */
  sweepWanted: boolean;
  /**
   * ms until the queue's earliest schedule slot, by the server's clock (0: due now, or not yet
   * known: a firer computes it); undefined when no schedule of the queue may fire (none, or all
   * paused or ended). Given while the queue is paused too: a pause holds messages, not firing.
   */
  scheduleDueMs: number | undefined;
}

/** nextDue with the sweep and schedule hints its script adds (lua/nextDue-2.lua). */
export function idleLook(layout: KeyLayout, qname: unknown): Operation<IdleLook> {
  const look = nextDue(layout, qname);
  return {
    ...look,
    parse(reply) {
      const nextDueMs = look.parse(reply);
      const [, sweep, scheduleDue] = reply as unknown[];
      return {
        nextDueMs,
        sweepWanted: Number(sweep ?? 0) === 1,
        scheduleDueMs: scheduleDue === undefined || scheduleDue === null ? undefined : Number(scheduleDue),
      };
    },
  };
}
