/** How numbers, rates, times, durations and sizes read on the page. */
import { T } from "./text.js";

const numberFormat = new Intl.NumberFormat("en");
export const rateFormat = new Intl.NumberFormat("en", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
export const costFormat = new Intl.NumberFormat("en", { maximumFractionDigits: 2 });
const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });
const clockFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });

export const fmtNumber = (n) => numberFormat.format(n);
export const fmtRate = (r) => (r === null || r === undefined ? T.none : rateFormat.format(r));
export const fmtClock = (ms) => clockFormat.format(new Date(ms));
export const fmtTime = (ms) => (ms === null || ms === undefined ? T.none : timeFormat.format(new Date(ms)));

export function fmtDuration(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

export function fmtDue(at, now) {
  if (at === null || at === undefined) return T.none;
  return at <= now ? T.now : T.inTime(fmtDuration(at - now));
}

export function fmtBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** A rate limit as `10/1s+5, 300/1m` (the command line's `--limit` syntax), and where it is checked. */
export function fmtRateLimit(rateLimit) {
  const per = (ms) => {
    for (const [unit, size] of [
      ["d", 86400000],
      ["h", 3600000],
      ["m", 60000],
      ["s", 1000],
    ])
      if (ms % size === 0) return `${ms / size}${unit}`;
    return `${ms}ms`;
  };
  const limits = rateLimit.limits.map((l) => `${l.max}/${per(l.perMs)}${l.burst > 0 ? `+${l.burst}` : ""}`);
  return `${limits.join(", ")} (${rateLimit.mode === "pace" ? T.controls.paced : T.controls.atReceive})`;
}

/** A pause as `since <time>, until <time> | until resumed, hard`; a restore says the queue is not paused. */
export function fmtPause(paused) {
  if (paused.restoring) return T.controls.restoring;
  const parts = [T.controls.since(fmtTime(paused.since)), paused.until ? T.controls.until(fmtTime(paused.until)) : T.controls.untilResumed];
  if (paused.hard) parts.push(T.controls.hardNote);
  return parts.join(", ");
}

/** Whether a queue row is paused now (a hard pause's restore is not a pause). */
export const isPaused = (q) => Boolean(q.paused && !q.paused.restoring);
