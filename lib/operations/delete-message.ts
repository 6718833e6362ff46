import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateId, validateQname } from "./rsmq-input-rules";
import type { DeleteMessageOptions } from "../types";

export function deleteMessage(layout: KeyLayout, options: Partial<DeleteMessageOptions>): Operation<0 | 1> {
  const qname = validateQname(options.qname);
  const id = validateId(options.id);
  const keys = layout.queue(qname);
  return {
    script: "deleteMessage",
    keys: [keys.messages, keys.hash],
    args: [id],
    parse: (reply) => (reply === 1 ? 1 : 0),
  };
}
