/**
 * One chunk of the dashboard's search of a queue's bodies for a text (lua/findMessages-2.lua): it
 * looks at a bounded number of messages (and bytes) from a ZSCAN cursor and answers the matches
 * and where to go on. Nothing is written. lib/queue-state/find-messages.ts runs chunks one after
 * the other, so no script call is long.
 */
import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import { rsmqError } from "../errors/rsmq-errors";
import { browsed } from "./message-page";
import type { BrowsedMessage } from "./message-page";

/** The longest text a search takes, in characters. */
export const MAX_FIND_TEXT = 200;

/** What one chunk saw. */
export interface FoundChunk {
  now: number;
  /** Messages in the queue. */
  total: number;
  /** The ZSCAN cursor to go on from; "0" when the whole queue was walked. */
  cursor: string;
  /** Messages this chunk looked at. */
  looked: number;
  matches: BrowsedMessage[];
}

/** How far one chunk may go. */
export interface ChunkBounds {
  /** Most messages to look at (one ZSCAN step may add a few). */
  messages: number;
  /** Most bytes of bodies to search. */
  bytes: number;
  /** Most matches (one ZSCAN step may add a few). */
  matches: number;
  /** Characters of a matching body to answer. */
  previewChars: number;
}

/** A text to find: 1 to MAX_FIND_TEXT characters. */
export function validateFindText(value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_FIND_TEXT) {
    throw rsmqError("invalidValue", `text must be 1 to ${MAX_FIND_TEXT} characters`);
  }
  return value;
}

/** A ZSCAN cursor as a previous chunk answered it: "0" (the start) or another whole number. */
export function validateCursor(value: unknown): string {
  if (typeof value !== "string" || !/^(0|[1-9]\d{0,19})$/.test(value)) {
    throw rsmqError("invalidValue", 'cursor must be "0" or a cursor a previous search answered');
  }
  return value;
}

/** The chunk of `qname` from `cursor`, looking for `text`. */
export function findMessagesChunk(
  layout: KeyLayout,
  qname: unknown,
  text: unknown,
  cursor: unknown,
  bounds: ChunkBounds,
): Operation<FoundChunk> {
  const keys = layout.queue(validateQname(qname));
  const needle = validateFindText(text);
  const from = validateCursor(cursor);
  return {
    script: "findMessages",
    keys: [keys.messages, keys.hash],
    // A character is at most 4 bytes in UTF-8: the script cuts bytes, the preview characters.
    args: [
      from,
      integerArg(bounds.messages),
      integerArg(bounds.bytes),
      integerArg(bounds.previewChars * 4),
      needle,
      integerArg(bounds.matches),
    ],
    parse(reply) {
      failIfCode(reply);
      const [nowText, total, next, looked, ...fields] = reply as unknown[];
      const now = Number(nowText);
      const matches: BrowsedMessage[] = [];
      // Each match with its attributes: eight items (lua/findMessages-2.lua).
      for (let i = 0; i < fields.length; i += 8) matches.push(browsed(fields.slice(i, i + 8), now, bounds.previewChars));
      return { now, total: Number(total), cursor: String(next), looked: Number(looked), matches };
    },
  };
}
