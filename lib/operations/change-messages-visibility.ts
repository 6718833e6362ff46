import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateIds, validateQname, validateSeconds } from "./rsmq-input-rules";
import type { ChangeMessagesVisibilityOptions } from "../types";
import { defineOperation } from "./descriptor";
import { validateReceipts } from "./receipt-rules";
import { splitFreeWake } from "./delete-message";
import type { Deleted } from "./delete-message";

/**
 * changeMessageVisibility for up to 1000 ids of one queue in one script: `1` per id whose message
 * exists (member and body both there) and was re-scored to now + vt, `0` for any other.
 */
export function changeMessagesVisibility(
  layout: KeyLayout,
  options: Partial<ChangeMessagesVisibilityOptions>,
): Operation<Deleted<Array<0 | 1>>> {
  const qname = validateQname(options.qname);
  const ids = validateIds(options.ids);
  const vt = validateSeconds("vt", options.vt);
  const rcs = validateReceipts(options.rcs, ids.length);
  const keys = layout.queue(qname);
  return {
    script: "changeMessagesVisibility",
    commandKind: "settle",
    keys: [keys.messages, keys.hash, keys.leases],
    args: [integerArg(vt), keys.wakeChannel, layout.cluster ? "1" : "", rcs ? "r" : "", ...ids, ...(rcs ?? [])],
    parse(raw) {
      failIfCode(raw);
      const { reply, wake } = splitFreeWake(raw);
      return { deleted: (reply as unknown[]).map((changed) => (changed === 1 ? 1 : 0)), wake };
    },
  };
}

/**
 * Whether there is nothing to change: `ids` is an empty list, what a receive gives when nothing
 * was due. The queue name and vt are still checked; such a call resolves `[]` without a round
 * trip (and so without the queue check), as deleteMessages does.
 */
export function nothingToChange(options: Partial<ChangeMessagesVisibilityOptions>): boolean {
  validateQname(options.qname);
  if (!(Array.isArray(options.ids) && options.ids.length === 0)) return false;
  validateSeconds("vt", options.vt);
  validateReceipts(options.rcs, 0);
  return true;
}

/** changeMessagesVisibilityAsync: `1` or `0` per id, in order; `[]` for no ids, with no round trip. */
export const changeMessagesVisibilityOperation = defineOperation<ChangeMessagesVisibilityOptions, Deleted<Array<0 | 1>>, Array<0 | 1>>({
  optionKeys: { qname: true, ids: true, vt: true, rcs: true },
  build: ({ layout }, options) => changeMessagesVisibility(layout, options),
  answerWithout: (options) => (nothingToChange(options) ? [] : undefined),
  observe: {
    operation: "change_visibility",
    attributes: ({ ids, vt }) => ({
      "messaging.batch.message_count": Array.isArray(ids) ? ids.length : undefined,
      "messaging.rsmq.visibility_timeout": typeof vt === "number" ? vt : undefined,
    }),
  },
  // Any changed message may now be due sooner than a sleeping Worker's wake (vt 0: at once).
  wakes: ({ deleted, wake }) => wake ?? deleted.includes(1),
  result: ({ deleted }) => deleted,
});
