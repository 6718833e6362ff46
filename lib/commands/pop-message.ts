import { failIfCode, type Command } from "./command";
import { toQueueMessage } from "./message-reply";
import { queueKeys } from "../keys";
import { validateQname } from "../validation";
import type { PopMessageOptions, QueueMessage } from "../types";

export function popMessage(ns: string, options: Partial<PopMessageOptions>): Command<QueueMessage | {}> {
  const keys = queueKeys(ns, validateQname(options.qname));
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
