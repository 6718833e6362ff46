/**
 * Dead letters grouped by why they stopped: the same reason and the same last error make a group,
 * where "the same" ignores what differs from one message to the next (numbers, hex or uuid-like
 * ids, message ids), so "order 1234 timed out" and "order 98 timed out" are one group. A group
 * keeps one real error as its example and the distinct texts it folded, which redrive (it matches
 * exact texts) is given one at a time. Error texts are cut, so a long one (a stack, a payload)
 * still groups with its equals.
 */
import type { DeadLetterGroup } from "./read-shapes";
import type { DeadLetterInfo } from "../types";
import { isDeadLetterReason } from "../dead-letters/reasons";

/** Characters of an error text a group keeps. */
export const ERROR_CHARS = 200;
/** Distinct error texts a group lists (it counts them all). */
export const MAX_VARIANTS = 20;

/** What stands for each kind of text that differs between two otherwise equal errors. */
const FOLDS: ReadonlyArray<[RegExp, string]> = [
  // A uuid, before its groups of digits read as numbers.
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<id>"],
  // rsmq's message ids: 32 letters and digits.
  [/\b[A-Za-z0-9]{32}\b/g, "<id>"],
  // A hex id (a trace, an object id, a hash): 8 or more hex digits with a digit among them, or 0x....
  [/\b0x[0-9a-f]+\b/gi, "<id>"],
  [/\b(?=[a-f]*[0-9])[0-9a-f]{8,}\b/gi, "<id>"],
  [/\d+/g, "<n>"],
];

/** The text of an error with its numbers and ids replaced by `<n>` and `<id>`: what a group is keyed by. */
export function errorPattern(error: string): string {
  return FOLDS.reduce((text, [pattern, mark]) => text.replace(pattern, mark), error);
}

type Building = DeadLetterGroup & { sourceSet: Set<string>; errorSet: Set<string> };

/** Groups the notes of the messages looked at; largest group first, then the latest. */
export function groupDeadLetters(notes: ReadonlyArray<DeadLetterInfo | undefined>): DeadLetterGroup[] {
  const groups = new Map<string, Building>();
  for (const note of notes) {
    const given = note?.reason;
    const reason = isDeadLetterReason(given) ? given : "unknown";
    const error = typeof note?.error === "string" ? Array.from(note.error).slice(0, ERROR_CHARS).join("") : "";
    const pattern = errorPattern(error);
    const key = JSON.stringify([reason, pattern]);
    const at = typeof note?.at === "number" ? note.at : null;
    let group = groups.get(key);
    if (!group) {
      group = {
        reason,
        error,
        pattern,
        variants: 0,
        errors: [],
        count: 0,
        sources: [],
        firstAt: at,
        lastAt: at,
        sourceSet: new Set(),
        errorSet: new Set(),
      };
      groups.set(key, group);
    }
    group.count += 1;
    if (!group.errorSet.has(error)) {
      group.errorSet.add(error);
      if (group.errors.length < MAX_VARIANTS) group.errors.push(error);
    }
    if (typeof note?.source === "string") group.sourceSet.add(note.source);
    if (at !== null) {
      group.firstAt = group.firstAt === null ? at : Math.min(group.firstAt, at);
      group.lastAt = group.lastAt === null ? at : Math.max(group.lastAt, at);
    }
  }
  return [...groups.values()]
    .map(({ sourceSet, errorSet, ...group }) => ({ ...group, variants: errorSet.size, sources: [...sourceSet].sort() }))
    .sort((a, b) => b.count - a.count || (b.lastAt ?? 0) - (a.lastAt ?? 0));
}
