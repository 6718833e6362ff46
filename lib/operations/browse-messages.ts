/**
 * browseMessages: a queue's messages in receive order, filtered by attributes and state, a page at
 * a time, without receiving them (lua/browseMessages-2.lua). One read-only script call per page, and
 * each call looks at no more than BROWSE_LOOKS members, so none is long whatever `where` matches.
 * The dashboard's filtered browser, its tenants view and the command line's `peek --where` run the
 * same page read.
 *
 * The cursor is keyset: the (score, id) of the last member a page looked at, base64url-encoded, so
 * a message that stays where it is is listed exactly once while others come and go between pages.
 */
import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import { parseWhy, sentAt } from "./message-reply";
import { visibleSince } from "./visible-since";
import { stateOf } from "./peek-messages";
import type { KeyLayout } from "../keys";
import { MAX_BATCH, validateQname } from "./rsmq-input-rules";
import { defineOperation } from "./descriptor";
import { invalidValue } from "./invalid-value";
import { attributesOf, encodeWhere } from "./message-attributes";
import { MAX_BATCH_BYTES } from "./batch-bytes";
import type { BrowseMessagesOptions, BrowseMessagesPage, BrowsedQueueMessage, MessageState } from "../types";

/** The most members one page's script call looks at, matching or not. */
export const BROWSE_LOOKS = 1000;
/** The most bytes of `<id>:at` JSON one call decodes (a member that crosses it is the last looked at). */
export const BROWSE_ATTRIBUTE_BYTES = 1024 * 1024;
/** A page's size when `limit` is left out. */
export const DEFAULT_BROWSE_LIMIT = 100;

const STATES: readonly MessageState[] = ["visible", "inFlight", "delayed"];

/** A score as Redis answers it (integer ms, or a double's digits) and a message id. */
const CURSOR_TEXT = /^(-?\d{1,20}(\.\d{1,20})?(e[+-]?\d{1,3})?) ([A-Za-z0-9]{1,64})$/;

/** The opaque cursor of (score, id). */
export function encodeCursor(score: string, id: string): string {
  return Buffer.from(`${score} ${id}`, "utf8").toString("base64url");
}

/** A cursor a previous page answered, as (score, id); null or undefined for the start; else throws. */
export function decodeCursor(value: unknown): { score: string; id: string } | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === "string" && /^[A-Za-z0-9_-]{1,200}$/.test(value) ? Buffer.from(value, "base64url").toString("utf8") : "";
  const parts = CURSOR_TEXT.exec(text);
  if (!parts) throw invalidValue("cursor", "null or the cursor a previous browseMessages answered", value);
  return { score: parts[1], id: parts[4] };
}

/** A state to keep, or undefined for every one; else throws. */
export function validateBrowseState(value: unknown): MessageState | undefined {
  if (value === undefined) return undefined;
  if (!STATES.includes(value as MessageState)) throw invalidValue("state", `one of ${STATES.join(", ")}`, value);
  return value as MessageState;
}

/** A page's size: 1 to 1000, DEFAULT_BROWSE_LIMIT when left out; else throws. */
export function validateBrowseLimit(value: unknown): number {
  if (value === undefined) return DEFAULT_BROWSE_LIMIT;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_BATCH) {
    throw invalidValue("limit", `a whole number from 1 to ${MAX_BATCH}`, value);
  }
  return value;
}

/** One message of a page as the script answers it: id, body, size, score, rc, fr, why, at. */
export type RawBrowsed = unknown[];

/** What one page's script call saw. */
export interface BrowsedAfter {
  /** The server's time of the look, epoch ms. */
  now: number;
  /** Messages in the queue. */
  total: number;
  /** Members this call looked at (matching or not). */
  looked: number;
  /** Where the next page goes on from; null at the end of the queue. */
  cursor: string | null;
  /** The messages kept, 8 fields each (see RawBrowsed). */
  entries: RawBrowsed[];
}

/** A browse checked: what the script takes. */
export interface BrowseQuery {
  where?: unknown;
  state?: unknown;
  cursor?: unknown;
  limit?: unknown;
}

/**
 * One page of `qname`: bad input (where, state, cursor, limit) throws before any round trip.
 * `cutAt` cuts each body to that many bytes on the server (0: whole bodies).
 */
export function browseMessages(layout: KeyLayout, qname: unknown, query: BrowseQuery, cutAt = 0): Operation<BrowsedAfter> {
  const keys = layout.queue(validateQname(qname));
  const where = query.where === undefined ? "" : encodeWhere(query.where);
  const state = validateBrowseState(query.state) ?? "";
  const after = decodeCursor(query.cursor);
  const limit = validateBrowseLimit(query.limit);
  return {
    script: "browseMessages",
    keys: [keys.messages, keys.hash],
    args: [
      after?.score ?? "",
      after?.id ?? "",
      integerArg(limit),
      integerArg(BROWSE_LOOKS),
      integerArg(BROWSE_ATTRIBUTE_BYTES),
      integerArg(MAX_BATCH_BYTES),
      where,
      state,
      integerArg(cutAt),
    ],
    parse(reply) {
      failIfCode(reply);
      const [nowText, total, looked, nextScore, nextId, ...fields] = reply as unknown[];
      const entries: RawBrowsed[] = [];
      for (let i = 0; i < fields.length; i += 8) entries.push(fields.slice(i, i + 8));
      const cursor = typeof nextId === "string" && nextId !== "" ? encodeCursor(String(nextScore), nextId) : null;
      return { now: Number(nowText), total: Number(total), looked: Number(looked), cursor, entries };
    },
  };
}

/** One entry of a page as browseMessages answers it. */
export function browsedQueueMessage([id, body, , score, rc, fr, why, at]: RawBrowsed, now: number): BrowsedQueueMessage {
  const messageId = String(id);
  // A priority's offset scores it decades back: it became visible when it was sent.
  const dueAt = visibleSince(messageId, Number(score));
  const receiveCount = parseInt(String(rc), 10) || 0;
  const deadLetter = parseWhy(why);
  const attributes = attributesOf(at);
  return {
    id: messageId,
    message: body === null || body === undefined ? "" : String(body),
    sent: sentAt(messageId),
    ...(deadLetter ? { deadLetter } : {}),
    state: stateOf(dueAt, receiveCount, now),
    dueAt,
    receiveCount,
    firstReceived: fr === null || fr === undefined || fr === false ? null : Number(fr),
    ...(attributes ? { attributes } : {}),
  };
}

/** browseMessagesAsync: one page of a queue's messages, filtered, with the cursor to go on from. */
export const browseMessagesOperation = defineOperation<BrowseMessagesOptions, BrowsedAfter, BrowseMessagesPage>({
  optionKeys: { qname: true, where: true, state: true, cursor: true, limit: true },
  build: ({ layout }, options) => browseMessages(layout, options.qname, options),
  result: ({ now, cursor, entries }) => ({ messages: entries.map((entry) => browsedQueueMessage(entry, now)), cursor }),
});
