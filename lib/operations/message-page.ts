/**
 * The dashboard's message browser: a page of a queue's messages in receive order
 * (lua/messagePage-2.lua), or one message with its whole body (lua/readMessage-2.lua), without
 * receiving them: no score and no receive count changes.
 */
import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import { parseWhy, sentAt } from "./message-reply";
import { scoredPriority, visibleSince } from "./visible-since";
import { stateOf } from "./peek-messages";
import type { KeyLayout } from "../keys";
import { MAX_BATCH, validateId, validateQname } from "./rsmq-input-rules";
import { rsmqError } from "../errors/rsmq-errors";
import type { DeadLetterInfo } from "../types";
import { MAX_BATCH_BYTES } from "./batch-bytes";
import { attributesOf } from "./message-attributes";
import type { MessageAttributes } from "./message-attributes";

/** An attribute's value as the dashboard's JSON carries it: bytes as `{ b64 }`, as `where` takes them. */
export type PrintableValue = string | number | boolean | { b64: string };

/** Attributes as JSON carries them: bytes as `{ b64 }`; undefined for none. */
export function printableAttributes(attributes: MessageAttributes | undefined): Record<string, PrintableValue> | undefined {
  if (!attributes) return undefined;
  const printable: Record<string, PrintableValue> = {};
  for (const [name, value] of Object.entries(attributes)) {
    printable[name] = value instanceof Uint8Array ? { b64: Buffer.from(value).toString("base64") } : value;
  }
  return printable;
}

/** Where a message is, as the message browser shows it: rsmq-next's three states, plus dead letters. */
export type BrowsedState = "visible" | "inFlight" | "delayed" | "deadLettered";

/** One message as the browser lists it: never received to be looked at. */
export interface BrowsedMessage {
  id: string;
  state: BrowsedState;
  /** rsmq's `rc`: how often it was received (0: never). */
  receiveCount: number;
  /** When it was sent (from its id). */
  sent: number;
  /** When it was first received (rsmq's `fr`); null when never. */
  firstReceived: number | null;
  /** When it becomes (or became) visible: its score, or its send time for a priority's offset score (docs/priorities.md). */
  dueAt: number;
  /**
   * The priority it is scored at (0 to 9, docs/priorities.md): what it was sent with while it waits
   * to be received the first time; 0 once delayed, received or made visible again, which keep none.
   */
  priority: number;
  /** The body's length in bytes. */
  size: number;
  /** The body, cut on the server to the preview length unless the full body was asked for. */
  body: string;
  /** Whether `body` is cut. */
  truncated: boolean;
  /** Why it was dead-lettered, for a message in a dead-letter queue. */
  deadLetter?: DeadLetterInfo;
  /** Its attributes (docs/attributes.md), bytes as `{ b64 }`; absent when it has none. */
  attributes?: Record<string, PrintableValue>;
}

/** A page as the script saw it. */
export interface BrowsedPage {
  now: number;
  total: number;
  messages: BrowsedMessage[];
}

/** The most characters of a body a preview may ask for (a whole body is read one message at a time). */
export const MAX_PREVIEW_CHARS = 100_000;

/** A whole number from `min` to `max`, or an `invalidValue` error naming `item`. */
function wholeNumber(item: string, value: unknown, min: number, max: number): number {
  const number = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== "number" || !Number.isInteger(number) || number < min || number > max) {
    throw rsmqError("invalidValue", `${item} must be a whole number from ${min} to ${max}`);
  }
  return number;
}

/** `limit` messages of `qname` from `offset` on, bodies cut to `previewChars` characters. */
export function messagePage(
  layout: KeyLayout,
  qname: unknown,
  page: { offset: unknown; limit: unknown },
  previewChars: number,
): Operation<BrowsedPage> {
  const keys = layout.queue(validateQname(qname));
  const offset = wholeNumber("offset", page.offset, 0, Number.MAX_SAFE_INTEGER);
  const limit = wholeNumber("limit", page.limit, 1, MAX_BATCH);
  const chars = wholeNumber("previewChars", previewChars, 1, MAX_PREVIEW_CHARS);
  return {
    script: "messagePage",
    keys: [keys.messages, keys.hash],
    // A character is at most 4 bytes in UTF-8: the script cuts bytes, the preview characters.
    // "a": each message with its `<id>:at`, an eighth item.
    args: [integerArg(offset), integerArg(limit), integerArg(chars * 4), integerArg(MAX_BATCH_BYTES), "a"],
    parse(reply) {
      failIfCode(reply);
      const [nowText, total, ...fields] = reply as unknown[];
      const now = Number(nowText);
      const messages: BrowsedMessage[] = [];
      for (let i = 0; i < fields.length; i += 8) messages.push(browsed(fields.slice(i, i + 8), now, chars));
      return { now, total: Number(total), messages };
    },
  };
}

/** One message with its whole body; rejects `messageNotFound` when it is not in the queue. */
export function readMessage(layout: KeyLayout, qname: unknown, id: unknown): Operation<{ now: number; message: BrowsedMessage }> {
  const keys = layout.queue(validateQname(qname));
  const messageId = validateId(id);
  return {
    script: "readMessage",
    keys: [keys.messages, keys.hash],
    args: [messageId],
    parse(reply) {
      failIfCode(reply === -2 ? -4 : reply);
      const [nowText, , ...fields] = reply as unknown[];
      const now = Number(nowText);
      return { now, message: browsed(fields, now, Infinity) };
    },
  };
}

/**
 * One entry of a reply (of messagePage, readMessage, findMessages or browseMessages): id, body,
 * size, score, rc, fr, why, and the `<id>:at` JSON where the script answers it.
 */
export function browsed([id, body, size, score, rc, fr, why, at]: unknown[], now: number, previewChars: number): BrowsedMessage {
  const messageId = String(id);
  // A priority's offset scores it decades back: it became visible when it was sent.
  const dueAt = visibleSince(messageId, Number(score));
  const receiveCount = parseInt(String(rc), 10) || 0;
  const deadLetter = parseWhy(why);
  const attributes = printableAttributes(attributesOf(at));
  const text = String(body ?? "");
  const bytes = Number(size);
  // The script cut 4 bytes per character: enough for `previewChars` whole characters, whatever
  // it cut inside of after them.
  const preview = Array.from(text).slice(0, previewChars).join("");
  const whole = Buffer.byteLength(text) === bytes && preview.length === text.length;
  return {
    id: messageId,
    state: deadLetter ? "deadLettered" : stateOf(dueAt, receiveCount, now),
    receiveCount,
    sent: sentAt(messageId),
    firstReceived: fr === null || fr === undefined || fr === false ? null : Number(fr),
    dueAt,
    priority: scoredPriority(messageId, Number(score)),
    size: bytes,
    body: whole ? text : preview,
    truncated: !whole,
    ...(deadLetter ? { deadLetter } : {}),
    ...(attributes ? { attributes } : {}),
  };
}
