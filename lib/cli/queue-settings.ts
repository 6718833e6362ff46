/** A queue's settings as the commands that change them print them: the same words in create and set. */
import type { QueueAttributes } from "../types";

/** The settings for `--json`: rsmq's three, the retention (0: none) and, when set, where expired messages go. */
export function settingsOf(attributes: QueueAttributes): Record<string, number | string> {
  const { vt, delay, maxsize, retention = 0, expireTo } = attributes;
  return expireTo === undefined ? { vt, delay, maxsize, retention } : { vt, delay, maxsize, retention, expireTo };
}

/** `vt 30s, delay 0s, maxsize 65536`, then `retention 3600s` and `expired to <qname>` when the queue has them. */
export function settingsLine(attributes: QueueAttributes): string {
  const { vt, delay, maxsize, retention, expireTo } = attributes;
  const parts = [`vt ${vt}s`, `delay ${delay}s`, `maxsize ${maxsize === -1 ? "unlimited" : maxsize}`];
  if (retention !== undefined) parts.push(`retention ${retention}s`);
  if (expireTo !== undefined) parts.push(`expired to ${expireTo}`);
  return parts.join(", ");
}
