/** A queue's controls as the command line prints them: in `stats`, and after `pause` and `rate-limit`. */
import { ago, stamp } from "./format";
import { formatLimit } from "./control-arguments";
import type { QueueControls } from "../operations/queue-controls-read";
import type { QueuePause, QueueRateLimit } from "../types";

/** `since 2026-12-06 07:00:00 UTC (5s ago), until ... (in 10m), hard`; a restore says it is not paused. */
export function pauseText(paused: QueuePause, now = Date.now()): string {
  if (paused.restoring) return `no: restoring the scores of a hard pause (since ${stamp(paused.since)})`;
  const parts = [`since ${stamp(paused.since)} (${ago(paused.since, now)})`];
  parts.push(paused.until === undefined ? "until resumed" : `until ${stamp(paused.until)} (${ago(paused.until, now)})`);
  if (paused.hard) parts.push("hard");
  return parts.join(", ");
}

/** `10/1s+5, 300/1m (at receive)` or `(paced at send)`. */
export function rateLimitText(rateLimit: QueueRateLimit): string {
  return `${rateLimit.limits.map(formatLimit).join(", ")} (${rateLimit.mode === "pace" ? "paced at send" : "at receive"})`;
}

/** `2 of 3 in flight (leased)`: how much of a concurrency limit rsmq-next consumers hold now. */
export function concurrencyText(concurrency: number, leased: number | undefined): string {
  return `${leased ?? 0} of ${concurrency} in flight (leased)`;
}

/** The label and text of each control the queue has set: none for an untouched queue. */
export function controlFields(controls: QueueControls, now = Date.now()): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  if (controls.paused) fields.push(["paused", pauseText(controls.paused, now)]);
  if (controls.rateLimit) fields.push(["rate limit", rateLimitText(controls.rateLimit)]);
  if (controls.rateLimitedUntil !== undefined) {
    fields.push(["blocked", `receives until ${stamp(controls.rateLimitedUntil)} (${ago(controls.rateLimitedUntil, now)})`]);
  }
  return fields;
}
