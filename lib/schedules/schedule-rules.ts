/**
 * The checks of upsertSchedule's options, each refusing bad input with an `invalidValue` error that
 * names the option, what it takes and what it got, before any round trip: nothing is written. The
 * result is the normalised definition the upsert script stores (Dates as epoch ms, `tz` "UTC" when
 * left out); the message's length against the queue's maxsize is the script's check.
 */
import { rsmqError } from "../errors/rsmq-errors";
import { validatePriority } from "../operations/priority";
import { MAX_SECONDS } from "../operations/rsmq-input-rules";
import type { ScheduleCatchup, ScheduleOverlap, UpsertScheduleOptions } from "../types/schedules";
import { normaliseCron, validateCron } from "./cron";
import { invalidValue, wholeNumberOption } from "../operations/invalid-value";

const DAY_MS = 86_400_000;
/** The shortest `every`: a second (a queue is not a timer wheel). */
export const MIN_EVERY_MS = 1000;
/** The longest `every` and `catchupWindowMs`: a leap year (longer is more likely a unit mistake). */
export const MAX_SPAN_MS = 366 * DAY_MS;
/** The default `catchupWindowMs`: a day. */
export const DEFAULT_CATCHUP_WINDOW_MS = DAY_MS;
/** The largest `limit`. */
export const MAX_SCHEDULE_LIMIT = 1e9;
/** The largest epoch ms a Date can hold. */
const MAX_EPOCH_MS = 8.64e15;
/** A schedule's name: also part of its `~sched:<name>` field and its dedup ids, so no spaces. */
export const SCHEDULE_NAME_FORMAT = /^[A-Za-z0-9_.:-]{1,100}$/;

/** An upsert's options, checked and normalised: what the upsert script stores as the definition. */
export interface ScheduleDefinition {
  name: string;
  every?: number;
  cron?: string;
  tz: string;
  message: string;
  delay?: number;
  priority: number;
  catchup: ScheduleCatchup;
  catchupWindowMs: number;
  overlap: ScheduleOverlap;
  startAt?: number;
  endAt?: number;
  limit?: number;
}

function oneOf<T extends string>(item: string, value: unknown, choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!choices.includes(value as T)) throw invalidValue(item, choices.map((choice) => `"${choice}"`).join(" or "), value);
  return value as T;
}

/** `startAt` / `endAt`: epoch ms or a valid Date, as epoch ms. */
function epochMs(item: string, value: unknown): number {
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== "number" || !Number.isInteger(ms) || ms < 0 || ms > MAX_EPOCH_MS) {
    throw invalidValue(item, "epoch milliseconds or a valid Date", value);
  }
  return ms;
}

/** A schedule's name: 1 to 100 of `[A-Za-z0-9_.:-]`. */
export function validateScheduleName(name: unknown): string {
  if (typeof name !== "string" || !SCHEDULE_NAME_FORMAT.test(name)) throw invalidValue("name", "1 to 100 of A-Z a-z 0-9 _ . : -", name);
  return name;
}

/**
 * upsertSchedule's options as the definition to store. `nowMs` is the client's clock, used only to
 * refuse a cron expression that never runs again. Throws invalidValue naming the first bad option.
 */
export function validateSchedule(options: Partial<UpsertScheduleOptions>, nowMs: number): ScheduleDefinition {
  if (typeof options !== "object" || options === null) throw invalidValue("options", "an object", options);
  const name = validateScheduleName(options.name);
  const { every, cron, tz } = options;
  if ((every === undefined) === (cron === undefined)) {
    throw rsmqError("invalidValue", "Expected exactly one of `every` and `cron`, got " + (every === undefined ? "neither" : "both"));
  }
  if (typeof options.message !== "string") throw invalidValue("message", "a string", options.message);
  const definition: ScheduleDefinition = {
    name,
    tz: "UTC",
    message: options.message,
    priority: options.priority === undefined ? 0 : validatePriority(options.priority),
    catchup: oneOf("catchup", options.catchup, ["latest", "all", "none"] as const, "latest"),
    catchupWindowMs:
      options.catchupWindowMs === undefined
        ? DEFAULT_CATCHUP_WINDOW_MS
        : wholeNumberOption("catchupWindowMs", options.catchupWindowMs, MIN_EVERY_MS, MAX_SPAN_MS, " of ms"),
    overlap: oneOf("overlap", options.overlap, ["allow", "skip"] as const, "allow"),
  };
  if (every !== undefined) {
    definition.every = wholeNumberOption("every", every, MIN_EVERY_MS, MAX_SPAN_MS, " of ms");
    if (tz !== undefined) throw invalidValue("tz", "left out with `every` (an `every` schedule has no zone)", tz);
  }
  if (options.delay !== undefined) definition.delay = wholeNumberOption("delay", options.delay, 0, MAX_SECONDS, " of seconds");
  if (options.startAt !== undefined) definition.startAt = epochMs("startAt", options.startAt);
  if (options.endAt !== undefined) {
    definition.endAt = epochMs("endAt", options.endAt);
    if (definition.startAt !== undefined && definition.endAt <= definition.startAt) {
      throw invalidValue("endAt", `after \`startAt\` (${definition.startAt})`, options.endAt);
    }
  }
  if (options.limit !== undefined) definition.limit = wholeNumberOption("limit", options.limit, 1, MAX_SCHEDULE_LIMIT);
  if (cron !== undefined) {
    if (typeof cron !== "string") throw invalidValue("cron", "a cron expression (a string)", cron);
    if (tz !== undefined && (typeof tz !== "string" || tz === ""))
      throw invalidValue("tz", 'an IANA time zone such as "Europe/Berlin"', tz);
    definition.tz = tz ?? "UTC";
    validateCron(cron, definition.tz, Math.max(nowMs, definition.startAt ?? nowMs));
    definition.cron = normaliseCron(cron);
  }
  return definition;
}

/**
 * What decides a schedule's slots: an upsert with the same key keeps the schedule's anchor and
 * state, one with another key restarts its slots from now (the upsert script compares them).
 */
export function scheduleTimingKey(definition: Pick<ScheduleDefinition, "every" | "cron" | "tz" | "startAt">): string {
  return JSON.stringify([definition.every ?? null, definition.cron ?? null, definition.tz, definition.startAt ?? null]);
}
