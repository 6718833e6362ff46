/**
 * The first messages of a queue in receive order, without receiving them, each with its state
 * (visible, in flight, delayed) and due time by the server's clock: one read-only script call
 * (lua/messagePage-2.lua, the dashboard's page read). `peekMessages` and the command line's `peek` run it.
 */
import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import { parseWhy, sentAt, withStoredAttributes } from "./message-reply";
import { visibleSince } from "./visible-since";
import type { KeyLayout } from "../keys";
import type { MessageState, MessageWithState } from "../types";
import { validateBatchSize, validateQname } from "./rsmq-input-rules";
import { defineOperation } from "./descriptor";
import type { PeekMessagesOptions } from "../types";
import { MAX_BATCH_BYTES } from "./batch-bytes";

/** What the script saw: the messages, with the server's time and the queue's size at that moment. */
export interface PeekResult {
  qname: string;
  /** The server's time when it looked, epoch ms. */
  now: number;
  /** Messages in the queue. */
  total: number;
  messages: MessageWithState[];
}

/** A message's state from its score (`dueAt`) and receive count, at the server's time `now`. */
export function stateOf(dueAt: number, receiveCount: number, now: number): MessageState {
  if (dueAt <= now) return "visible";
  return receiveCount > 0 ? "inFlight" : "delayed";
}

/**
 * One message of a browseMessages or readMessage reply (id, body, size, score, rc, fr, why, and
 * readMessage's attributes `at`), with its state by the server's time `now`.
 */
export function withState([id, body, , score, rc, , why, at]: unknown[], now: number): MessageWithState {
  const messageId = String(id);
  // A priority's offset scores it decades back: it became visible when it was sent.
  const dueAt = visibleSince(messageId, Number(score));
  const receiveCount = parseInt(String(rc), 10) || 0;
  const deadLetter = parseWhy(why);
  const message: MessageWithState = {
    id: messageId,
    message: body === null ? "" : String(body),
    sent: sentAt(messageId),
    ...(deadLetter ? { deadLetter } : {}),
    state: stateOf(dueAt, receiveCount, now),
    dueAt,
    receiveCount,
  };
  return withStoredAttributes(message, at);
}

/** The first `count` messages of `qname` (10 when not given) with their states. */
export function peekMessages(layout: KeyLayout, options: { qname?: unknown; count?: unknown }): Operation<PeekResult> {
  const qname = validateQname(options.qname);
  const keys = layout.queue(qname);
  const count = validateBatchSize("count", options.count ?? 10);
  return {
    // The dashboard's page read, from the first message on, bodies whole.
    script: "messagePage",
    keys: [keys.messages, keys.hash],
    args: ["0", integerArg(count), "0", integerArg(MAX_BATCH_BYTES), "a"],
    parse(reply) {
      failIfCode(reply);
      const [nowText, total, ...fields] = reply as unknown[];
      const now = Number(nowText);
      const messages: MessageWithState[] = [];
      // Per message: id, body, size, score, rc, fr, why, at (lua/messagePage-2.lua with "a").
      for (let i = 0; i < fields.length; i += 8) messages.push(withState(fields.slice(i, i + 8), now));
      return { qname, now, total: Number(total), messages };
    },
  };
}

/** peekMessagesAsync: the first messages of a queue with their states, received by nobody. */
export const peekMessagesOperation = defineOperation<PeekMessagesOptions, PeekResult, MessageWithState[]>({
  optionKeys: { qname: true, count: true },
  build: ({ layout }, options) => peekMessages(layout, options),
  result: ({ messages }) => messages,
});
