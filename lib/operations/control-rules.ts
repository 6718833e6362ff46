/**
 * The checks of the queue controls' options (pauseQueue, setRateLimit, rateLimitQueue), each
 * refusing bad input with an `invalidValue` error that names the option, what it takes and what
 * it got, before any round trip: nothing is written.
 */
import { rsmqError } from "../errors/rsmq-errors";
import type { RateLimit } from "../types";
import { invalidValue, wholeNumberOption } from "./invalid-value";

/** The furthest a pause's `until` may lie ahead: a year (a later one is more likely a unit mistake, seconds for ms). */
export const MAX_PAUSE_AHEAD_MS = 366 * 86_400_000;
/** At most this many limits in one rate limit (each costs the receive a little arithmetic). */
export const MAX_LIMITS = 8;
/** The largest `max` and `burst` of a limit. */
export const MAX_LIMIT_COUNT = 1_000_000;
/** The longest `perMs` of a limit, and the longest block: a day. */
export const MAX_LIMIT_MS = 86_400_000;

/**
 * A pause's `until`, epoch ms (a Date is read as its time): after `nowMs` (the client's clock, so
 * an `until` already past is refused before the round trip; the script then reads the server's)
 * and at most MAX_PAUSE_AHEAD_MS ahead.
 */
export function validateUntil(value: unknown, nowMs: number): number {
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== "number" || !Number.isInteger(ms) || ms <= nowMs || ms > nowMs + MAX_PAUSE_AHEAD_MS) {
    throw invalidValue("until", "epoch milliseconds (or a Date) after now and at most a year ahead", value);
  }
  return ms;
}

/** `hard`: a boolean. */
export function validateHard(value: unknown): boolean {
  if (typeof value !== "boolean") throw invalidValue("hard", "true or false", value);
  return value;
}

const LIMIT_KEYS: ReadonlySet<string> = new Set(["max", "perMs", "burst"]);

/** One limit, with its `burst` (0 when left out). */
function validateLimit(value: unknown, index: number): Required<RateLimit> {
  const item = `limits[${index}]`;
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw invalidValue(item, "an object { max, perMs, burst? }", value);
  const limit = value as Record<string, unknown>;
  const unknown = Object.keys(limit).find((key) => !LIMIT_KEYS.has(key));
  if (unknown !== undefined)
    throw rsmqError("invalidValue", `Unknown key \`${unknown}\` in \`${item}\`: a limit takes max, perMs and burst`);
  return {
    max: wholeNumberOption(`${item}.max`, limit.max, 1, MAX_LIMIT_COUNT),
    perMs: wholeNumberOption(`${item}.perMs`, limit.perMs, 1, MAX_LIMIT_MS),
    burst: limit.burst === undefined ? 0 : wholeNumberOption(`${item}.burst`, limit.burst, 0, MAX_LIMIT_COUNT),
  };
}

/** 1 to MAX_LIMITS limits. */
export function validateLimits(value: unknown): Array<Required<RateLimit>> {
  if (!Array.isArray(value) || value.length < 1 || value.length > MAX_LIMITS) {
    throw invalidValue(
      "limits",
      `a list of 1 to ${MAX_LIMITS} limits { max, perMs, burst? }`,
      Array.isArray(value) ? `${value.length} limits` : value,
    );
  }
  return value.map(validateLimit);
}

/** A rate limit's mode, "receive" when left out. */
export function validateMode(value: unknown): "receive" | "pace" {
  if (value === undefined) return "receive";
  if (value !== "receive" && value !== "pace") throw invalidValue("mode", '"receive" or "pace"', value);
  return value;
}

/** A block's length: a whole number of ms from 1 to MAX_LIMIT_MS. */
export function validateBlockMs(value: unknown): number {
  return wholeNumberOption("ms", value, 1, MAX_LIMIT_MS);
}

/** The `ratelimit` field's value (lib/operations/queue-fields.ts): `<r|p>;<max>/<perMs>/<burst>,...`. */
export function rateLimitField(limits: ReadonlyArray<Required<RateLimit>>, mode: "receive" | "pace"): string {
  return `${mode === "pace" ? "p" : "r"};${limits.map(({ max, perMs, burst }) => `${max}/${perMs}/${burst}`).join(",")}`;
}

/** The limits and mode a `ratelimit` field holds; undefined for one that is not of that form. */
export function parseRateLimitField(field: string): { limits: Array<Required<RateLimit>>; mode: "receive" | "pace" } | undefined {
  const match = /^([rp]);(.+)$/.exec(field);
  if (!match) return undefined;
  const limits = match[2].split(",").map((text) => {
    const [max, perMs, burst] = text.split("/").map(Number);
    return { max, perMs, burst };
  });
  if (limits.some(({ max, perMs, burst }) => !(max > 0 && perMs > 0 && burst >= 0))) return undefined;
  return { limits, mode: match[1] === "p" ? "pace" : "receive" };
}
