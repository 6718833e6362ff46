import type { Command } from "./command";
import { parseAttributes } from "./attributes-reply";
import { queueKeys } from "../keys";
import { validateQname } from "../validation";
import type { GetQueueAttributesOptions, QueueAttributes } from "../types";

export function getQueueAttributes(ns: string, options: Partial<GetQueueAttributesOptions>): Command<QueueAttributes> {
  const keys = queueKeys(ns, validateQname(options.qname));
  return {
    script: "getQueueAttributes",
    keys: [keys.hash, keys.messages],
    args: [],
    parse: parseAttributes,
  };
}
