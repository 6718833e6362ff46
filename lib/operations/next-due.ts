import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";

const EMPTY_QUEUE = -1;

/**
 * Whether a message is due: ms until the earliest message is visible (0: due now), null for an
 * empty queue. Read-only (lua/nextDue-2.lua), so it answers during a write pause and on a full server.
 */
export function nextDue(layout: KeyLayout, qname: unknown): Operation<number | null> {
  const keys = layout.queue(validateQname(qname));
  return {
    script: "nextDue",
    commandKind: "look",
    keys: [keys.messages, keys.hash],
    args: [],
    parse(reply) {
      failIfCode(reply);
      const ms = Number((reply as unknown[])[0]);
      return ms === EMPTY_QUEUE ? null : ms;
    },
  };
}

/** What the Worker's idle look reads: nextDue's answer, and whether the queue wants a sweep (docs/retention.md). */
export interface IdleLook {
  nextDueMs: number | null;
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
