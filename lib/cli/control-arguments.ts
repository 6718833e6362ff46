/**
 * The command line's words for a queue's controls (docs/cli.md): durations (`500ms`, `30s`,
 * `10m`, `2h`, `1d`), a pause's end (an ISO time, epoch ms or a duration from now) and rate limits
 * written `<max>/<per>[+<burst>]` (`10/1s`, `100/1m+20`, `5/s`). Parsers throw commander's
 * InvalidArgumentError, so a bad value is a usage error (exit 2) before anything connects; the
 * formatters print a limit in the same syntax, so what `stats` shows can be typed back.
 */
import { InvalidArgumentError } from "commander";
import type { RateLimit } from "../types";

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+(?:\.\d+)?)?(ms|s|m|h|d)$/;

/** `30s`, `1.5s`, `10m`, a bare unit (`s`: 1 s) to whole ms above 0; undefined when it is no duration. */
function durationMs(text: string, bareUnit: boolean): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match || (match[1] === undefined && !bareUnit)) return undefined;
  const ms = Number(match[1] ?? "1") * UNIT_MS[match[2]];
  return Number.isSafeInteger(ms) && ms > 0 ? ms : undefined;
}

/** A duration above 0 in whole ms: `30s`, `500ms`, `10m`, `2h`, `1d`. */
export function duration(value: string): number {
  const ms = durationMs(value, false);
  if (ms === undefined) throw new InvalidArgumentError("Expected a duration above 0 such as 500ms, 30s, 10m, 2h or 1d.");
  return ms;
}

/**
 * A pause's end as epoch ms: an ISO time (`2026-12-06T18:00:00Z`), epoch ms (13 digits), or a
 * duration from now by this machine's clock (`10m`). Whether it is after now is the server's call.
 */
export function untilTime(value: string, now = Date.now()): number {
  const text = value.trim();
  const ms = durationMs(text, false);
  if (ms !== undefined) return now + ms;
  if (/^\d+$/.test(text)) {
    const epoch = Number(text);
    if (Number.isSafeInteger(epoch) && text.length >= 12) return epoch;
  } else if (/^\d{4}-\d\d-\d\d/.test(text)) {
    const parsed = Date.parse(text);
    if (Number.isFinite(parsed)) return parsed;
  }
  throw new InvalidArgumentError("Expected an ISO time (2026-12-06T18:00:00Z), epoch milliseconds, or a duration such as 10m.");
}

/** One `--limit`: `<max>/<per>[+<burst>]`, e.g. `10/1s`, `100/1m+20`, `5/s`. */
export function limit(value: string): Required<RateLimit> {
  const match = /^(\d+)\/([^+]+)(?:\+(\d+))?$/.exec(value.trim());
  const perMs = match ? durationMs(match[2], true) : undefined;
  const max = match ? Number(match[1]) : 0;
  const burst = match?.[3] === undefined ? 0 : Number(match[3]);
  if (!match || perMs === undefined || !Number.isSafeInteger(max) || max < 1 || !Number.isSafeInteger(burst)) {
    throw new InvalidArgumentError("Expected <max>/<per>[+<burst>] such as 10/1s, 100/1m+20 or 5/s (max 1 or more).");
  }
  return { max, perMs, burst };
}

/** commander's collector for a repeated option. */
export function collect<T>(parse: (value: string) => T): (value: string, previous: T[] | undefined) => T[] {
  return (value, previous) => [...(previous ?? []), parse(value)];
}

/** ms in the largest unit that divides it: `1s`, `1m`, `1500ms`. */
export function formatPer(ms: number): string {
  for (const unit of ["d", "h", "m", "s"]) if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  return `${ms}ms`;
}

/** A limit as `--limit` takes it: `10/1s`, `100/1m+20`. */
export function formatLimit(rule: Required<RateLimit>): string {
  return `${rule.max}/${formatPer(rule.perMs)}${rule.burst > 0 ? `+${rule.burst}` : ""}`;
}
