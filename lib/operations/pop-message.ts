import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import { toQueueMessage, withStoredAttributes } from "./message-reply";
import { visibleSince } from "./visible-since";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import type { PopMessageOptions, QueueMessage } from "../types";
import type { ReceivedDetail } from "../telemetry/delivery";
import { splitExpired } from "../retention/expired-report";
import type { ExpiredReport } from "../retention/expired-report";
import { defineOperation } from "./descriptor";
import { delivered, oneMessage } from "../telemetry/delivery";

/** What popMessage read: the message (`{}`: none was due), and the expired messages met on the way. */
export interface Popped {
  message: QueueMessage | {};
  /** Undefined when none (always for a queue with no retention). */
  expired?: ExpiredReport;
}

/** What popMessageDetailed read: with what telemetry needs of the message, and the server's ms. */
export interface PoppedMessage extends Popped {
  /** Undefined when nothing was due. */
  detail: ReceivedDetail | undefined;
  now: number | undefined;
}

export function popMessage(layout: KeyLayout, options: Partial<PopMessageOptions>): Operation<Popped> {
  const keys = layout.queue(validateQname(options.qname));
  return {
    script: "popMessage",
    commandKind: "receive",
    keys: [keys.messages, keys.hash, keys.leases],
    args: [],
    parse(reply) {
      failIfCode(reply);
      const { rest: fields, expired } = splitExpired(reply as unknown[]);
      // id, body, rc, fr, at (lua/popMessage-3.lua)
      const message =
        fields.length === 0 ? {} : withStoredAttributes(toQueueMessage(fields[0], fields[1], fields[2], fields[3]), fields[4]);
      return expired === undefined ? { message } : { message, expired };
    },
  };
}

/** popMessage with the details telemetry needs: when the message became visible, and its trace context. */
export function popMessageDetailed(layout: KeyLayout, options: Partial<PopMessageOptions>): Operation<PoppedMessage> {
  const keys = layout.queue(validateQname(options.qname));
  return {
    script: "popMessage",
    commandKind: "receive",
    keys: [keys.messages, keys.hash, keys.leases],
    args: ["d"],
    parse(reply) {
      failIfCode(reply);
      const { rest: fields, expired } = splitExpired(reply as unknown[]);
      const found: PoppedMessage =
        fields.length === 0
          ? { message: {}, detail: undefined, now: undefined }
          : {
              // id, body, rc, fr, at, now, score, tp (lua/popMessage-3.lua)
              message: withStoredAttributes(toQueueMessage(fields[0], fields[1], fields[2], fields[3]), fields[4]),
              detail: {
                visibleAt: visibleSince(String(fields[0]), Number(fields[6])),
                carrier: typeof fields[7] === "string" ? fields[7] : undefined,
              },
              now: Number(fields[5]),
            };
      return expired === undefined ? found : { ...found, expired };
    },
  };
}

/** popMessageAsync: the next due message, deleted as it is received; `{}` when none is due. */
export const popMessageOperation = defineOperation<PopMessageOptions, Popped | PoppedMessage, QueueMessage | {}>({
  optionKeys: { qname: true },
  build: ({ layout, observed }, options) => (observed ? popMessageDetailed(layout, options) : popMessage(layout, options)),
  observe: {
    operation: "pop",
    done: (popped, span, recording, queue) => {
      const { message } = popped;
      if (!("id" in message)) return;
      const { detail, now } = popped as PoppedMessage;
      span?.set(oneMessage(message));
      delivered(queue, "pop", { messages: [message], details: detail && [detail], now }, span, recording);
    },
  },
  result: ({ message }) => message,
});
