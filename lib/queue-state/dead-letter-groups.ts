/**
 * Dead letters grouped by why they stopped: the same reason and the same last error make a group.
 * Error texts are cut, so a long one (a stack, a payload) still groups with its equals.
 */
import type { DeadLetterGroup } from "./read-shapes";
import type { DeadLetterInfo } from "../types";
import { isDeadLetterReason } from "../dead-letters/reasons";

/** Characters of an error text a group keeps. */
export const ERROR_CHARS = 200;

/** Groups the notes of the messages looked at; largest group first, then the latest. */
export function groupDeadLetters(notes: ReadonlyArray<DeadLetterInfo | undefined>): DeadLetterGroup[] {
  const groups = new Map<string, DeadLetterGroup & { sourceSet: Set<string> }>();
  for (const note of notes) {
    const given = note?.reason;
    const reason = isDeadLetterReason(given) ? given : "unknown";
    const error = typeof note?.error === "string" ? Array.from(note.error).slice(0, ERROR_CHARS).join("") : "";
    const key = JSON.stringify([reason, error]);
    const at = typeof note?.at === "number" ? note.at : null;
    let group = groups.get(key);
    if (!group) {
      group = { reason, error, count: 0, sources: [], firstAt: at, lastAt: at, sourceSet: new Set() };
      groups.set(key, group);
    }
    group.count += 1;
    if (typeof note?.source === "string") group.sourceSet.add(note.source);
    if (at !== null) {
      group.firstAt = group.firstAt === null ? at : Math.min(group.firstAt, at);
      group.lastAt = group.lastAt === null ? at : Math.max(group.lastAt, at);
    }
  }
  return [...groups.values()]
    .map(({ sourceSet, ...group }) => ({ ...group, sources: [...sourceSet].sort() }))
    .sort((a, b) => b.count - a.count || (b.lastAt ?? 0) - (a.lastAt ?? 0));
}
