import { integerArg } from "./operation";
import type { Operation } from "./operation";
import { parseAttributes } from "./attributes-reply";
import type { KeyLayout } from "../keys";
import { rsmqError } from "../errors/rsmq-errors";
import { isGiven, validateMaxsize, validateQname, validateSeconds } from "./rsmq-input-rules";
import type { QueueAttributes, SetQueueAttributesOptions } from "../types";

/** rsmq checks the attributes in this order. */
const ATTRIBUTES = ["vt", "maxsize", "delay"] as const;

export function setQueueAttributes(layout: KeyLayout, options: Partial<SetQueueAttributesOptions>): Operation<QueueAttributes> {
  const given = ATTRIBUTES.filter((name) => isGiven(options[name]));
  if (given.length === 0) throw rsmqError("noAttributeSupplied", "No attribute was supplied");
  const qname = validateQname(options.qname);
  const args: string[] = [];
  for (const name of given) {
    const value = name === "maxsize" ? validateMaxsize(options.maxsize) : validateSeconds(name, options[name]);
    args.push(name, integerArg(value));
  }
  const keys = layout.queue(qname);
  return {
    script: "setQueueAttributes",
    keys: [keys.hash, keys.messages],
    args,
    parse: parseAttributes,
  };
}
