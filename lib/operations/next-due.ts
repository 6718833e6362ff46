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

/** What the Worker's idle look reads: nextDue's answer, and whether the queue wants a sweep (docs/retention.md). */
export interface IdleLook {
  /** As nextDue resolves: ms until a message is due, null for an empty queue, or the block that holds receives back. */
  nextDueMs: number | null | ReceiveBlock;
  /** The queue has a retention and messages, its sweep lock is free and its last sweep a minute old or more. */
  sweepWanted: boolean;
}

/** nextDue with the sweep hint its script adds for a queue with a retention (lua/nextDue-2.lua). */
export function idleLook(layout: KeyLayout, qname: unknown): Operation<IdleLook> {
  const look = nextDue(layout, qname);
  return {
    ...look,
    parse(reply) {
      const nextDueMs = look.parse(reply);
      return { nextDueMs, sweepWanted: Number((reply as unknown[])[1] ?? 0) === 1 };
    },
  };
}
