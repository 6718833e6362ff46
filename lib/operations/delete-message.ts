import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateId, validateQname } from "./rsmq-input-rules";
import type { DeleteMessageOptions } from "../types";
import { defineOperation } from "./descriptor";

/**
 * Deletes a message; `expired` (the last step of moving an expired message to the queue's
 * expireTo, lib/retention/expired-moves.ts) also counts it in the queue's `totalexpired`.
 */
export function deleteMessage(layout: KeyLayout, options: Partial<DeleteMessageOptions>, expired = false): Operation<0 | 1> {
  const qname = validateQname(options.qname);
  const id = validateId(options.id);
  const keys = layout.queue(qname);
  return {
    script: "deleteMessage",
    commandKind: "settle",
    keys: [keys.messages, keys.hash],
    args: expired ? [id, "x"] : [id],
    parse: (reply) => (reply === 1 ? 1 : 0),
  };
}

/** deleteMessageAsync: resolves `1` if the message existed, else `0`. */
export const deleteMessageOperation = defineOperation<DeleteMessageOptions, 0 | 1>({
  optionKeys: { qname: true, id: true, rc: true },
  build: ({ layout }, options) => deleteMessage(layout, options),
  observe: {
    operation: "delete",
    attributes: ({ id }) => ({ "messaging.message.id": typeof id === "string" ? id : undefined }),
  },
});
