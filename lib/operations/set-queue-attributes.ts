import { integerArg } from "./operation";
import type { Operation } from "./operation";
import { parseAttributes } from "./attributes-reply";
import type { KeyLayout } from "../keys";
import { rsmqError } from "../errors/rsmq-errors";
import { isGiven, validateExpireTo, validateMaxsize, validateQname, validateRetention, validateSeconds } from "./rsmq-input-rules";
import { DEDUP_WINDOW_FIELD, EXPIRE_TO_FIELD, RETENTION_FIELD } from "./queue-fields";
import { validateDedupWindow } from "./dedup-id";
import type { QueueAttributes, SetQueueAttributesOptions } from "../types";
import { defineOperation } from "./descriptor";

/** rsmq checks the attributes in this order; rsmq-next's own come after them. */
const ATTRIBUTES = ["vt", "maxsize", "delay", "retention", "expireTo", "dedupWindowMs"] as const;

export function setQueueAttributes(layout: KeyLayout, options: Partial<SetQueueAttributesOptions>): Operation<QueueAttributes> {
  const given = ATTRIBUTES.filter((name) => isGiven(options[name]));
  if (given.length === 0) throw rsmqError("noAttributeSupplied", "No attribute was supplied");
  const qname = validateQname(options.qname);
  const args: string[] = [];
  for (const name of given) args.push(...attributeArgs(name, options, qname));
  const keys = layout.queue(qname);
  return {
    script: "setQueueAttributes",
    keys: [keys.hash, keys.messages],
    args,
    parse: parseAttributes,
  };
}

/** One attribute's field and value for the script; "" removes the field (see lua/setQueueAttributes-2.lua). */
function attributeArgs(name: (typeof ATTRIBUTES)[number], options: Partial<SetQueueAttributesOptions>, qname: string): [string, string] {
  switch (name) {
    case "maxsize":
      return [name, integerArg(validateMaxsize(options.maxsize))];
    case "retention": {
      const retention = validateRetention(options.retention);
      return [RETENTION_FIELD, retention === 0 ? "" : integerArg(retention)];
    }
    case "expireTo":
      return [EXPIRE_TO_FIELD, validateExpireTo(options.expireTo, qname)];
    case "dedupWindowMs":
      // 0 removes the field: the queue's sends go back to the default window.
      return [DEDUP_WINDOW_FIELD, options.dedupWindowMs === 0 ? "" : String(validateDedupWindow(options.dedupWindowMs))];
    default:
      return [name, integerArg(validateSeconds(name, options[name]))];
  }
}

/** setQueueAttributesAsync: resolves the new attributes. */
export const setQueueAttributesOperation = defineOperation<SetQueueAttributesOptions, QueueAttributes>({
  optionKeys: { qname: true, vt: true, delay: true, maxsize: true, retention: true, expireTo: true, dedupWindowMs: true },
  build: ({ layout }, options) => setQueueAttributes(layout, options),
});
