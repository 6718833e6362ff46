/**
 * The copy step of the cross-slot redrive (lua/redriveCopy-2.lua; Redis Cluster, queues in
 * different slots): writes the claimed messages into the target queue as new messages, with their
 * attributes.
 */
import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import type { ClaimedMessage } from "./redrive-claim";

/** Resolves how many were written (an id written twice is overwritten: the step can be repeated). */
export function redriveCopy(layout: KeyLayout, target: string, messages: readonly ClaimedMessage[]): Operation<number> {
  const to = layout.queue(target);
  return {
    script: "redriveCopy",
    keys: [to.messages, to.hash],
    args: messages.flatMap(({ id, message, storedAttributes }) => [id, message, storedAttributes ?? ""]),
    parse(reply) {
      failIfCode(reply);
      return Number(reply);
    },
  };
}
