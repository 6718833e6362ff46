import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";

/**
 * Hides a message the caller holds for `ms` milliseconds from now (retry backoff, extension); while
 * the queue is hard-paused the script adds the pause's offset, so the resume restores the score.
 */
export function hideMessage(layout: KeyLayout, qname: string, id: string, ms: number): Operation<0 | 1> {
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
