/**
 * The first messages of a dead-letter queue, each with why it stopped, without receiving them: one
 * read-only script call (lua/peekDeadLetters-2.lua). `peekDeadLetters` and redrive's pages run it.
 */
import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import { parseWhy, sentAt, withStoredAttributes } from "./message-reply";
import type { KeyLayout } from "../keys";
import { validateBatchSize, validateQname } from "./rsmq-input-rules";
import type { PeekedMessage } from "../types";
import { defineOperation } from "./descriptor";
import type { PeekDeadLettersOptions } from "../types";
import { MAX_BATCH_BYTES } from "./batch-bytes";

/** A page of dead letters; `cut`: it stopped at the byte bound (MAX_BATCH_BYTES) before `count`, and more follow. */
export interface DeadLetterPage {
  messages: PeekedMessage[];
  cut: boolean;
}

/** `count` messages (10 when not given) from `offset` on, in receive order, as many as the byte bound lets one call read. */
export function peekDeadLetterPage(
  layout: KeyLayout,
  options: { qname?: unknown; count?: unknown },
  offset = 0,
): Operation<DeadLetterPage> {
  const keys = layout.queue(validateQname(options.qname));
  const count = validateBatchSize("count", options.count ?? 10);
  return {
    script: "peekDeadLetters",
    keys: [keys.messages, keys.hash],
    args: [integerArg(count), integerArg(offset), integerArg(MAX_BATCH_BYTES)],
    parse(reply) {
      failIfCode(reply);
      const fields = reply as unknown[];
      const messages: PeekedMessage[] = [];
      // Four per message (id, body, why, at), and a trailing 1 when the page was cut at the byte bound.
      const cut = fields.length % 4 === 1;
      for (let i = 0; i + 3 < fields.length; i += 4) {
        const id = String(fields[i]);
        const deadLetter = parseWhy(fields[i + 2]);
        const message: PeekedMessage = {
          id,
          message: fields[i + 1] === null ? "" : String(fields[i + 1]),
          sent: sentAt(id),
          ...(deadLetter ? { deadLetter } : {}),
        };
        messages.push(withStoredAttributes(message, fields[i + 3]));
      }
      return { messages, cut };
    },
  };
}

/** The page's messages alone. */
export function peekDeadLetters(layout: KeyLayout, options: { qname?: unknown; count?: unknown }, offset = 0): Operation<PeekedMessage[]> {
  const page = peekDeadLetterPage(layout, options, offset);
  return { ...page, parse: (reply) => page.parse(reply).messages };
}

/** peekDeadLettersAsync (deprecated for peekMessagesAsync): the first messages, without their states. */
export const peekDeadLettersOperation = defineOperation<PeekDeadLettersOptions, PeekedMessage[]>({
  optionKeys: { qname: true, count: true },
  build: ({ layout }, options) => peekDeadLetters(layout, options),
});
