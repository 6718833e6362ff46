import type { Command } from "./command";
import { queueKeys } from "../keys";
import { validateId, validateQname } from "../validation";
import type { DeleteMessageOptions } from "../types";

export function deleteMessage(ns: string, options: Partial<DeleteMessageOptions>): Command<0 | 1> {
  const qname = validateQname(options.qname);
  const id = validateId(options.id);
  const keys = queueKeys(ns, qname);
  return {
    script: "deleteMessage",
    keys: [keys.messages, keys.hash],
    args: [id],
    parse: (reply) => (reply === 1 ? 1 : 0),
  };
}
