import { failIfCode } from "./operation";
import type { QueueAttributes } from "../types";

/**
 * Reads `{ {vt, delay, maxsize, totalrecv, totalsent, created, modified, retention, expireto,
 * totalexpired, dedupwindow}, msgs, hiddenmsgs }`. The retention and dedup fields are added only
 * when the queue uses them, so a queue without a retention reads exactly as under rsmq 0.12.4.
 */
export function parseAttributes(reply: unknown): QueueAttributes {
  failIfCode(reply);
  const [fields, msgs, hiddenmsgs] = reply as [Array<string | null>, number, number];
  const int = (index: number): number => parseInt(fields[index] as string, 10);
  const attributes: QueueAttributes = {
    vt: int(0),
    delay: int(1),
    maxsize: int(2),
    totalrecv: int(3) || 0,
    totalsent: int(4) || 0,
    created: int(5),
    modified: int(6),
    msgs,
    hiddenmsgs,
  };
  const retention = int(7) || 0;
  const totalexpired = int(9) || 0;
  if (retention > 0) attributes.retention = retention;
  if (fields[8]) attributes.expireTo = fields[8];
  if (retention > 0 || totalexpired > 0) attributes.totalexpired = totalexpired;
  const dedupWindowMs = int(10) || 0;
  if (dedupWindowMs > 0) attributes.dedupWindowMs = dedupWindowMs;
  return attributes;
}
