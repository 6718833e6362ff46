/**
 * A schedule as its `~sched:<name>` field of the queue hash holds it (JSON, written by the
 * schedule scripts with cjson), parsed tolerantly: a key the writer left out reads as absent, or
 * as its default, so a field written by an older or newer version still reads.
 */
import type { ScheduleCatchup, ScheduleInfo, ScheduleOverlap } from "../types/schedules";
import { planFire } from "./fire-plan";
import type { FirePlan } from "./fire-plan";
import { CRONER_MISSING } from "./cron";
import { DEFAULT_CATCHUP_WINDOW_MS } from "./schedule-rules";
import type { PlannedSchedule } from "./fire-plan";

/** The stored definition and state of one schedule (times are epoch ms, server clock). */
export interface StoredSchedule extends PlannedSchedule {
  name: string;
  /** Bumped by every upsert, pause and resume: a firer's plan for an older `v` is refused. */
  v: number;
  message: string;
  delay?: number;
  priority: number;
  catchup: ScheduleCatchup;
  catchupWindowMs: number;
  overlap: ScheduleOverlap;
  limit?: number;
  paused: boolean;
  createdAt: number;
  updatedAt: number;
  /** Slots count from here: its creation, its last change of timing, its last resume. */
  since: number;
  /** The newest slot handled, fired or counted missed or overlapped. */
  last?: number;
  lastRunAt?: number;
  lastSentAt?: number;
  lastId?: string;
  /** The next slot; 0 unknown (firers settle it), -1 none (ended). */
  next: number;
  count: number;
  missed: number;
  overlapped: number;
}

/** A number the JSON holds (a numeric string too, as Lua may write one); undefined otherwise. */
function numberOf(value: unknown): number | undefined {
  const number = typeof value === "string" && value !== "" ? Number(value) : value;
  return typeof number === "number" && Number.isFinite(number) ? number : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Leaves out the keys whose value is undefined, so an absent key stays absent (not `key: undefined`). */
function withoutUndefined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as Array<keyof T>) if (value[key] === undefined) delete value[key];
  return value;
}

/** The schedule `name` from its field's JSON. Throws when the field is not a JSON object. */
export function parseStoredSchedule(name: string, json: string): StoredSchedule {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    raw = undefined;
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new Error(`The stored schedule "${name}" is not a JSON object`);
  const field = raw as Record<string, unknown>;
  const createdAt = numberOf(field.createdAt) ?? 0;
  return withoutUndefined<StoredSchedule>({
    name,
    v: numberOf(field.v) ?? 0,
    every: numberOf(field.every),
    cron: stringOf(field.cron),
    tz: stringOf(field.tz) ?? "UTC",
    anchor: numberOf(field.anchor),
    message: stringOf(field.message) ?? "",
    delay: numberOf(field.delay),
    priority: numberOf(field.priority) ?? 0,
    catchup: field.catchup === "all" || field.catchup === "none" ? field.catchup : "latest",
    catchupWindowMs: numberOf(field.catchupWindowMs) ?? DEFAULT_CATCHUP_WINDOW_MS,
    overlap: field.overlap === "skip" ? "skip" : "allow",
    startAt: numberOf(field.startAt),
    endAt: numberOf(field.endAt),
    limit: numberOf(field.limit),
    paused: field.paused === true || field.paused === 1 || field.paused === "1",
    createdAt,
    updatedAt: numberOf(field.updatedAt) ?? createdAt,
    since: numberOf(field.since) ?? createdAt,
    last: numberOf(field.last),
    lastRunAt: numberOf(field.lastRunAt),
    lastSentAt: numberOf(field.lastSentAt),
    lastId: stringOf(field.lastId),
    next: numberOf(field.next) ?? 0,
    count: numberOf(field.count) ?? 0,
    missed: numberOf(field.missed) ?? 0,
    overlapped: numberOf(field.overlapped) ?? 0,
  });
}

/**
 * When the schedule fires next, as of `nowMs`: the stored `next`, or, when that is unknown (0:
 * just upserted or resumed), what a firer would plan now (a slot already due reads as itself).
 * -1: none is left (ended); null: paused, or a cron schedule this process cannot plan (croner,
 * an optional peer, is not installed): a list (a dashboard, an exporter) still reads.
 */
function nextRun(stored: StoredSchedule, nowMs: number): number | null {
  if (stored.next === -1) return -1;
  if (stored.paused) return null;
  if (stored.next > 0) return stored.next;
  let plan: FirePlan | undefined;
  try {
    plan = planFire(stored, nowMs);
  } catch (error) {
    if (error instanceof Error && error.message === CRONER_MISSING) return null;
    throw error;
  }
  if (plan === undefined) return null;
  return plan.slots.length > 0 ? plan.slots[0] : plan.next;
}

/** The public view of a stored schedule (listSchedules' reply), as of `nowMs` (server clock). */
export function toScheduleInfo(stored: StoredSchedule, nowMs: number): ScheduleInfo {
  const next = nextRun(stored, nowMs);
  return withoutUndefined<ScheduleInfo>({
    name: stored.name,
    every: stored.every,
    cron: stored.cron,
    tz: stored.tz,
    anchor: stored.anchor,
    message: stored.message,
    delay: stored.delay,
    priority: stored.priority,
    catchup: stored.catchup,
    catchupWindowMs: stored.catchupWindowMs,
    overlap: stored.overlap,
    startAt: stored.startAt,
    endAt: stored.endAt,
    limit: stored.limit,
    paused: stored.paused,
    ended: next === -1,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
    lastRunAt: stored.lastRunAt ?? null,
    lastSentAt: stored.lastSentAt ?? null,
    lastId: stored.lastId ?? null,
    nextRunAt: next === -1 ? null : next,
    count: stored.count,
    missed: stored.missed,
    overlapped: stored.overlapped,
  });
}
