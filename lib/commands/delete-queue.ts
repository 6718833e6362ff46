import { failIfCode, type Command } from "./command";
import { queueKeys } from "../keys";
import { validateQname } from "../validation";
import type { DeleteQueueOptions } from "../types";

export function deleteQueue(ns: string, options: Partial<DeleteQueueOptions>): Command<1> {
  const qname = validateQname(options.qname);
  const keys = queueKeys(ns, qname);
  return {
    script: "deleteQueue",
    keys: [keys.hash, keys.messages, keys.registry],
    args: [qname],
    parse(reply) {
      failIfCode(reply);
      return 1;
    },
  };
}
