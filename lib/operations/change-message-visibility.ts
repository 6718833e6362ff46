import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateId, validateQname, validateSeconds } from "./rsmq-input-rules";
import { validateReceipt } from "./receipt-rules";
import type { ChangeMessageVisibilityOptions } from "../types";
import { defineOperation } from "./descriptor";
import { splitFreeWake } from "./delete-message";
import type { Deleted } from "./delete-message";

/**
 * Makes a message visible vt seconds from now; with `rc` only while its receive count still is
 * that receipt (else 0, nothing written). `deleted` here is whether it changed; vt 0 of a leased
 * message of a queue a receive is held at publishes `~free:` (lua/changeMessageVisibility-3.lua).
 */
export function changeMessageVisibility(layout: KeyLayout, options: Partial<ChangeMessageVisibilityOptions>): Operation<Deleted<0 | 1>> {
  const qname = validateQname(options.qname);
  const id = validateId(options.id);
  const vt = validateSeconds("vt", options.vt);
  const rc = validateReceipt(options.rc);
  const keys = layout.queue(qname);
  const args = [id, integerArg(vt), keys.wakeChannel, layout.cluster ? "1" : ""];
  if (rc !== undefined) args.push(rc);
  return {
    script: "changeMessageVisibility",
    commandKind: "settle",
    keys: [keys.messages, keys.hash, keys.leases],
    args,
    parse(raw) {
      failIfCode(raw);
      const { reply, wake } = splitFreeWake(raw);
      return { deleted: reply === 1 ? 1 : 0, wake };
    },
  };
}

/** changeMessageVisibilityAsync: `1` if the message exists, else `0`; it may now be due sooner than a sleeping Worker's wake. */
export const changeMessageVisibilityOperation = defineOperation<ChangeMessageVisibilityOptions, Deleted<0 | 1>, 0 | 1>({
  optionKeys: { qname: true, id: true, vt: true, rc: true },
  build: ({ layout }, options) => changeMessageVisibility(layout, options),
  observe: {
    operation: "change_visibility",
    attributes: ({ id, vt }) => ({
      "messaging.message.id": typeof id === "string" ? id : undefined,
      "messaging.rsmq.visibility_timeout": typeof vt === "number" ? vt : undefined,
    }),
  },
  // The `~free:` text when it freed a slot a receive waits for: a control wake reaches held consumers too.
  wakes: ({ wake }) => wake ?? true,
  result: ({ deleted }) => deleted,
});
