import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateId, validateQname, validateSeconds } from "./rsmq-input-rules";
import type { ChangeMessageVisibilityOptions } from "../types";
import { defineOperation } from "./descriptor";

export function changeMessageVisibility(layout: KeyLayout, options: Partial<ChangeMessageVisibilityOptions>): Operation<0 | 1> {
  const qname = validateQname(options.qname);
  const id = validateId(options.id);
  const vt = validateSeconds("vt", options.vt);
  const keys = layout.queue(qname);
  return {
    script: "changeMessageVisibility",
    commandKind: "settle",
    keys: [keys.messages, keys.hash],
    args: [id, integerArg(vt)],
    parse(reply) {
      failIfCode(reply);
      return reply === 1 ? 1 : 0;
    },
  };
}

/** changeMessageVisibilityAsync: `1` if the message exists, else `0`; it may now be due sooner than a sleeping Worker's wake. */
export const changeMessageVisibilityOperation = defineOperation<ChangeMessageVisibilityOptions, 0 | 1>({
  optionKeys: { qname: true, id: true, vt: true, rc: true },
  build: ({ layout }, options) => changeMessageVisibility(layout, options),
  observe: {
    operation: "change_visibility",
    attributes: ({ id, vt }) => ({
      "messaging.message.id": typeof id === "string" ? id : undefined,
      "messaging.rsmq.visibility_timeout": typeof vt === "number" ? vt : undefined,
    }),
  },
  wakes: () => true,
});
