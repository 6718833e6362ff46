/**
 * Moves a page of dead letters back into one queue as new messages, in one script
 * (lua/redrive-4.lua), for queues whose keys share a slot. lib/dead-letters/redrive.ts pages
 * through a dead-letter queue with it.
 */
import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";

/** Resolves how many of `ids` moved (one no longer in the dead-letter queue, or hidden there, stays). */
export function redriveAtomically(layout: KeyLayout, dlq: string, target: string, ids: string[]): Operation<number> {
  const from = layout.queue(dlq);
  const to = layout.queue(target);
  return {
    script: "redrive",
    keys: [from.messages, from.hash, to.messages, to.hash],
    args: ids,
    parse(reply) {
      failIfCode(reply);
      return Number(reply);
    },
  };
}
