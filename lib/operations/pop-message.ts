import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import { toQueueMessage } from "./message-reply";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import type { PopMessageOptions, QueueMessage } from "../types";

export function popMessage(layout: KeyLayout, options: Partial<PopMessageOptions>): Operation<QueueMessage | {}> {
  const keys = layout.queue(validateQname(options.qname));
  return {
    script: "popMessage",
    keys: [keys.messages, keys.hash],
    args: [],
    parse(reply) {
      failIfCode(reply);
      const fields = reply as unknown[];
      return fields.length === 0 ? {} : toQueueMessage(fields[0], fields[1], fields[2], fields[3]);
    },
  };
}
