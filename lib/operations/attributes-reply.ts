import { failIfCode } from "./operation";
import { parseRateLimitField } from "./control-rules";
import type { QueueAttributes, QueuePause } from "../types";

/**
 * Reads `{ {vt, delay, maxsize, totalrecv, totalsent, created, modified, retention, expireto,
 * totalexpired, dedupwindow, paused, ratelimit, rlblock, concurrency}, msgs, hiddenmsgs, nowMs,
 * leased? }` (leased only with a concurrency limit). The fields
 * rsmq 0.12.4 does not have are added only when the queue uses them, so a queue without them
 * reads exactly as under rsmq 0.12.4.
 */
export function parseAttributes(reply: unknown): QueueAttributes {
  failIfCode(reply);
  const [fields, msgs, hiddenmsgs, nowMs, leased] = reply as [Array<string | null>, number, number, number?, number?];
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
  if (nowMs === undefined) return attributes;
  const paused = pauseOf(fields[11], nowMs);
  if (paused) attributes.paused = paused;
  const rateLimit = fields[12] ? parseRateLimitField(fields[12]) : undefined;
  if (rateLimit) attributes.rateLimit = rateLimit;
  const blockedUntil = int(13);
  if (blockedUntil > nowMs) attributes.rateLimitedUntil = blockedUntil;
  const concurrency = int(14);
  if (concurrency > 0) {
    attributes.concurrency = concurrency;
    attributes.leased = Number(leased ?? 0);
  }
  return attributes;
}

/**
 * The pause a `paused` field holds (`<sinceMs>:<untilMs or empty>:<kind>`, see
 * lib/operations/queue-fields.ts) at `nowMs`: undefined when there is none or its `until` passed.
 */
export function pauseOf(field: string | null | undefined, nowMs: number): QueuePause | undefined {
  const match = /^(\d*):(\d*):([shr])$/.exec(field ?? "");
  if (!match) return undefined;
  const since = Number(match[1]);
  const until = match[2] === "" ? undefined : Number(match[2]);
  if (match[3] === "r") return { since, hard: true, restoring: true };
  if (until !== undefined && until <= nowMs) return undefined;
  return until === undefined ? { since, hard: match[3] === "h" } : { since, until, hard: match[3] === "h" };
}
