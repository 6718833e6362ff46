import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateId, validateQname, validateSeconds } from "./rsmq-input-rules";
import type { ChangeMessageVisibilityOptions } from "../types";

export function changeMessageVisibility(layout: KeyLayout, options: Partial<ChangeMessageVisibilityOptions>): Operation<0 | 1> {
  const qname = validateQname(options.qname);
  const id = validateId(options.id);
  const vt = validateSeconds("vt", options.vt);
  const keys = layout.queue(qname);
  return {
    script: "changeMessageVisibility",
    keys: [keys.messages, keys.hash],
    args: [id, integerArg(vt)],
    parse(reply) {
      failIfCode(reply);
      return reply === 1 ? 1 : 0;
    },
  };
}
