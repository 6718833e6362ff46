import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";

/**
 * Hides a message the caller holds for `ms` milliseconds from now (retry backoff, extension); while
 * the queue is hard-paused the script adds the pause's offset, so the resume restores the score.
 * With `rc` (the holder's receipt) only while the message's receive count still is `rc`; `release`
 * gives the message back (a retry's backoff): its concurrency lease ends now rather than moving.
 * Resolves 0 when the message is gone or its receipt superseded (nothing written).
 */
export function hideMessage(layout: KeyLayout, qname: string, id: string, ms: number, rc?: number, release = false): Operation<0 | 1> {
  const keys = layout.queue(qname);
  const args = [id, integerArg(ms)];
  if (rc !== undefined || release) args.push(rc === undefined ? "" : integerArg(rc));
  if (release) args.push("1");
  return {
    script: "hideMessage",
    commandKind: "settle",
    keys: [keys.messages, keys.hash, keys.leases],
    args,
    parse(reply) {
      failIfCode(reply);
      return reply === 1 ? 1 : 0;
    },
  };
}
