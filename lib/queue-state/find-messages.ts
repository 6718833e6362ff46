/**
 * The dashboard's search of a queue: by id (one read), or by a text in the bodies, a bounded scan
 * in chunks. Each chunk is one short script call (lib/operations/find-messages.ts); a request runs
 * chunks until it has FIND_MATCHES matches, has looked at FIND_PER_REQUEST messages, or has walked
 * the whole queue, and answers a cursor to go on from. Nothing is received or written.
 */
import type { Operation } from "../operations/operation";
import type { KeyLayout } from "../keys";
import { findMessagesChunk, validateCursor, validateFindText } from "../operations/find-messages";
import type { FoundChunk } from "../operations/find-messages";
import { readMessage } from "../operations/message-page";
import type { BrowsedMessage } from "../operations/message-page";
import { validateId, validateQname } from "../operations/rsmq-input-rules";
import { rsmqError } from "../errors/rsmq-errors";

/** Messages one script call looks at, at most (one ZSCAN step of up to 100 may add a few). */
export const FIND_CHUNK_MESSAGES = 1000;
/** Bytes of bodies one script call searches, at most (the body that crosses it is searched whole). */
export const FIND_CHUNK_BYTES = 1024 * 1024;
/** Messages one request looks at, at most: then it answers a cursor to go on from. */
export const FIND_PER_REQUEST = 10_000;
/** Matches after which a request stops (the ZSCAN step under way, about 100 messages, may add more). */
export const FIND_MATCHES = 50;

/** What to find: `id` (exact), or `text` (in the bodies) from `cursor`. */
export interface FindQuery {
  id?: unknown;
  text?: unknown;
  cursor?: unknown;
}

/** `GET api/queues/:qname/find`: the messages found, and how far the search went. */
export interface FindResponse {
  /** The server's time of the read; null for an id the queue does not hold. */
  now: number | null;
  qname: string;
  /** Messages in the queue; null for a find by id. */
  total: number | null;
  by: "id" | "text";
  /** Messages looked at by this request. */
  looked: number;
  /** Where a next request goes on from (`cursor=`), or null when the whole queue was searched. */
  cursor: string | null;
  /** The bounds this search kept to, as the page states them. */
  bounds: { perRequest: number; perCall: number; bytesPerCall: number; matches: number };
  /** In the order found (a text search walks the queue in no particular order), bodies cut to the preview. */
  messages: BrowsedMessage[];
}

const BOUNDS = { perRequest: FIND_PER_REQUEST, perCall: FIND_CHUNK_MESSAGES, bytesPerCall: FIND_CHUNK_BYTES, matches: FIND_MATCHES };

/** Runs one read and resolves its answer (the board counts it). */
export type RunRead = <T>(build: () => Operation<T>) => Promise<T>;

/**
 * Finds messages of `qname` by `query`; bad input rejects (invalidValue, invalidFormat) before any
 * round trip, and a missing queue with queueNotFound.
 */
export async function findMessages(
  run: RunRead,
  layout: KeyLayout,
  qname: string,
  query: FindQuery,
  previewChars: number,
): Promise<FindResponse> {
  const name = validateQname(qname);
  const hasId = query.id !== undefined && query.id !== "";
  const hasText = query.text !== undefined && query.text !== "";
  if (hasId === hasText) throw rsmqError("invalidValue", "find takes either id or text");
  if (hasId) return findById(run, layout, name, validateId(query.id), previewChars);
  const text = validateFindText(query.text);
  let cursor = validateCursor(query.cursor ?? "0");
  const found = new Map<string, BrowsedMessage>();
  let looked = 0;
  let last: FoundChunk;
  do {
    const want = Math.min(FIND_CHUNK_MESSAGES, FIND_PER_REQUEST - looked);
    const chunk = { messages: want, bytes: FIND_CHUNK_BYTES, matches: FIND_MATCHES - found.size, previewChars };
    last = await run(() => findMessagesChunk(layout, name, text, cursor, chunk));
    looked += last.looked;
    cursor = last.cursor;
    // ZSCAN may answer a message twice (while the set is rehashed): once is enough.
    for (const message of last.matches) found.set(message.id, message);
  } while (cursor !== "0" && looked < FIND_PER_REQUEST && found.size < FIND_MATCHES);
  return {
    now: last.now,
    qname: name,
    total: last.total,
    by: "text",
    looked,
    cursor: cursor === "0" ? null : cursor,
    bounds: BOUNDS,
    messages: [...found.values()],
  };
}

async function findById(run: RunRead, layout: KeyLayout, qname: string, id: string, previewChars: number): Promise<FindResponse> {
  try {
    const { now, message } = await run(() => readMessage(layout, qname, id));
    return { now, qname, total: null, by: "id", looked: 1, cursor: null, bounds: BOUNDS, messages: [cut(message, previewChars)] };
  } catch (error) {
    if (!(error instanceof Error) || error.name !== "messageNotFound") throw error;
    return { now: null, qname, total: null, by: "id", looked: 1, cursor: null, bounds: BOUNDS, messages: [] };
  }
}

/** The message with its body cut to the preview, as a text search answers it. */
function cut(message: BrowsedMessage, previewChars: number): BrowsedMessage {
  const characters = Array.from(message.body);
  if (characters.length <= previewChars) return message;
  return { ...message, body: characters.slice(0, previewChars).join(""), truncated: true };
}
