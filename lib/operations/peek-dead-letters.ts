/**
 * The first messages of a dead-letter queue, each with why it stopped, without receiving them: one
 * read-only script call (lua/peekDeadLetters-2.lua). `peekDeadLetters` and redrive's pages run it.
 */
import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import { parseWhy, sentAt } from "./message-reply";
import type { KeyLayout } from "../keys";
import { validateBatchSize, validateQname } from "./rsmq-input-rules";
import type { PeekedMessage } from "../types";
import { defineOperation } from "./descriptor";
import type { PeekDeadLettersOptions } from "../types";

/** `count` messages (10 when not given) from `offset` on, in receive order. */
export function peekDeadLetters(layout: KeyLayout, options: { qname?: unknown; count?: unknown }, offset = 0): Operation<PeekedMessage[]> {
  const keys = layout.queue(validateQname(options.qname));
  const count = validateBatchSize("count", options.count ?? 10);
  return {
    script: "peekDeadLetters",
    keys: [keys.messages, keys.hash],
    args: [integerArg(count), integerArg(offset)],
    parse(reply) {
      failIfCode(reply);
      const fields = reply as unknown[];
      const peeked: PeekedMessage[] = [];
      for (let i = 0; i < fields.length; i += 3) {
        const id = String(fields[i]);
        const deadLetter = parseWhy(fields[i + 2]);
        peeked.push({
          id,
          message: fields[i + 1] === null ? "" : String(fields[i + 1]),
          sent: sentAt(id),
          ...(deadLetter ? { deadLetter } : {}),
        });
      }
      return peeked;
    },
  };
}

/** peekDeadLettersAsync (deprecated for peekMessagesAsync): the first messages, without their states. */
export const peekDeadLettersOperation = defineOperation<PeekDeadLettersOptions, PeekedMessage[]>({
  optionKeys: { qname: true, count: true },
  build: ({ layout }, options) => peekDeadLetters(layout, options),
});
