/** How received messages look for people: one block per message, the body in full. */
import type { QueueMessage } from "../../types";
import { ago, preview } from "../format";
import type { Output } from "../output";

/** `hidden` (for receive): the queue and the seconds the messages stay hidden. */
export function printMessages(out: Output, messages: readonly QueueMessage[], hidden?: { qname: string; vt: number }): void {
  messages.forEach((message, index) => {
    if (index > 0) out.line();
    const fields: Array<[string, string]> = [
      ["id", out.color.bold(message.id)],
      ["sent", ago(message.sent)],
      ["received", message.rc === 1 ? "once" : `${message.rc} times, first ${ago(message.fr)}`],
    ];
    if (hidden) fields.push(["hidden for", `${hidden.vt}s; when done: rsmq-next delete ${hidden.qname} ${message.id}`]);
    fields.push(["message", preview(message.message, Infinity)]);
    out.fields(fields);
  });
}
