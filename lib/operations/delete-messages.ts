import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateIds, validateQname } from "./rsmq-input-rules";
import { validateReceipts } from "./receipt-rules";
import type { DeleteMessagesOptions } from "../types";
import { defineOperation } from "./descriptor";
import { splitFreeWake, withoutWake } from "./delete-message";
import type { Deleted } from "./delete-message";

/** Deletes `ids`; with `rcs` (one receipt per id) each only while its receive count still is its receipt. */
export function deleteMessages(layout: KeyLayout, options: Partial<DeleteMessagesOptions>): Operation<Array<0 | 1>> {
  return withoutWake(deleteMessagesFreeing(layout, options));
}

/** deleteMessages, telling the `~free:` wake it published. */
export function deleteMessagesFreeing(layout: KeyLayout, options: Partial<DeleteMessagesOptions>): Operation<Deleted<Array<0 | 1>>> {
  const qname = validateQname(options.qname);
  const ids = validateIds(options.ids);
  const rcs = validateReceipts(options.rcs, ids.length);
  const keys = layout.queue(qname);
  return {
    script: "deleteMessages",
    commandKind: "settle",
    keys: [keys.messages, keys.hash, keys.leases],
    args: [keys.wakeChannel, layout.cluster ? "1" : "", rcs ? "r" : "", ...ids, ...(rcs ?? [])],
    parse: (raw) => {
      const { reply, wake } = splitFreeWake(raw);
      return { deleted: (reply as unknown[]).map((found) => (found === 1 ? 1 : 0)), wake };
    },
  };
}

/**
 * Whether there is nothing to delete: `ids` is an empty list, what a receive gives when nothing was
 * due. The queue name (and `rcs`, which must be empty too) is still checked; such a call resolves
 * `[]` without a round trip.
 */
export function nothingToDelete(options: Partial<DeleteMessagesOptions>): boolean {
  validateQname(options.qname);
  if (!(Array.isArray(options.ids) && options.ids.length === 0)) return false;
  validateReceipts(options.rcs, 0);
  return true;
}

/** deleteMessagesAsync: `1` or `0` per id, in order; `[]` for no ids, with no round trip. */
export const deleteMessagesOperation = defineOperation<DeleteMessagesOptions, Deleted<Array<0 | 1>>, Array<0 | 1>>({
  optionKeys: { qname: true, ids: true, rcs: true },
  build: ({ layout }, options) => deleteMessagesFreeing(layout, options),
  answerWithout: (options) => (nothingToDelete(options) ? [] : undefined),
  observe: {
    operation: "delete",
    attributes: ({ ids }) => ({ "messaging.batch.message_count": Array.isArray(ids) ? ids.length : undefined }),
  },
  wakes: ({ wake }) => wake ?? false,
  result: ({ deleted }) => deleted,
});
