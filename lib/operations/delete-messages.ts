import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateIds, validateQname } from "./rsmq-input-rules";
import type { DeleteMessagesOptions } from "../types";
import { defineOperation } from "./descriptor";

export function deleteMessages(layout: KeyLayout, options: Partial<DeleteMessagesOptions>): Operation<Array<0 | 1>> {
  const qname = validateQname(options.qname);
  const ids = validateIds(options.ids);
  const keys = layout.queue(qname);
  return {
    script: "deleteMessages",
    commandKind: "settle",
    keys: [keys.messages, keys.hash],
    args: ids,
    parse: (reply) => (reply as unknown[]).map((found) => (found === 1 ? 1 : 0)),
  };
}

/**
 * Whether there is nothing to delete: `ids` is an empty list, what a receive gives when nothing was
 * due. The queue name is still checked; such a call resolves `[]` without a round trip.
 */
export function nothingToDelete(options: Partial<DeleteMessagesOptions>): boolean {
  validateQname(options.qname);
  return Array.isArray(options.ids) && options.ids.length === 0;
}

/** deleteMessagesAsync: `1` or `0` per id, in order; `[]` for no ids, with no round trip. */
export const deleteMessagesOperation = defineOperation<DeleteMessagesOptions, Array<0 | 1>>({
  optionKeys: { qname: true, ids: true, rcs: true },
  build: ({ layout }, options) => deleteMessages(layout, options),
  answerWithout: (options) => (nothingToDelete(options) ? [] : undefined),
  observe: {
    operation: "delete",
    attributes: ({ ids }) => ({ "messaging.batch.message_count": Array.isArray(ids) ? ids.length : undefined }),
  },
});
