import type { Operation } from "./operation";
import { parseAttributes } from "./attributes-reply";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import type { GetQueueAttributesOptions, QueueAttributes } from "../types";
import { defineOperation } from "./descriptor";

export function getQueueAttributes(layout: KeyLayout, options: Partial<GetQueueAttributesOptions>): Operation<QueueAttributes> {
  const keys = layout.queue(validateQname(options.qname));
  return {
    script: "getQueueAttributes",
    keys: [keys.hash, keys.messages, keys.leases],
    args: [],
    parse: parseAttributes,
  };
}

/** getQueueAttributesAsync: a queue's settings, counters and message counts. */
export const getQueueAttributesOperation = defineOperation<GetQueueAttributesOptions, QueueAttributes>({
  optionKeys: { qname: true },
  build: ({ layout }, options) => getQueueAttributes(layout, options),
});
