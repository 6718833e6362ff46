/**
 * What a firing process does for one schedule at `nowMs` (server clock): which slots to send, how
 * many to count as missed, and the schedule's next slot. Pure: the fireSchedule script applies the
 * plan, and refuses it when the schedule changed in between (its `v`) or another process handled
 * these slots first (its `last`), so any number of firers may plan the same schedule.
 *
 * The candidates are the slots s with max(since, startAt, last + 1) <= s <= min(now, endAt). The
 * newest is on time when now - s <= min(period / 2, 60 s), and an on-time slot always fires. The
 * older ones were missed, and `catchup` says which of them still fire:
 * - `latest`: when no slot is on time, the newest candidate if it is within `catchupWindowMs`
 *   (so a schedule sends at most one message per pass);
 * - `all`: every candidate within `catchupWindowMs`, the newest MAX_SLOTS_PER_FIRE;
 * - `none`: none.
 * Every candidate not fired is counted as missed, except the ones `limit` cuts: the schedule ends there.
 */
import type { ScheduleCatchup } from "../types/schedules";
import { firstSlotFrom, slotPeriodMs } from "./slots";
import type { ScheduleTiming } from "./slots";

/** One fire sends at most this many messages (a catch-up of `all` included). */
export const MAX_SLOTS_PER_FIRE = 100;
/** The most cron slots one plan steps through to count missed ones (each step costs croner a date computation). */
export const MAX_CRON_COUNT = 100_000;
/** A slot is on time when fired at most this late (or half its period, when less). */
export const MAX_ON_TIME_MS = 60_000;
const MIN_DEDUP_TTL_MS = 60_000;
const MAX_DEDUP_TTL_MS = 7 * 86_400_000;

/** What a plan reads of a stored schedule (lib/schedules/stored-schedule.ts). */
export interface PlannedSchedule extends ScheduleTiming {
  catchup: ScheduleCatchup;
  catchupWindowMs: number;
  limit?: number;
  paused: boolean;
  /** Slots count from here. */
  since: number;
  /** The newest slot already handled. */
  last?: number;
  /** The stored next slot: 0 unknown, -1 none. */
  next: number;
  /** Messages sent so far (for `limit`). */
  count: number;
}

/** What the fireSchedule script is asked to do (its ARGV). */
export interface FirePlan {
  /** The slots to send a message for, ascending, at most MAX_SLOTS_PER_FIRE. */
  slots: number[];
  /** The newest slot this plan handles (fired or counted missed); null when no slot is due. */
  handledThrough: number | null;
  /** How many due slots it does not fire. */
  missed: number;
  /** The schedule's next slot after this plan, epoch ms; -1 when none is left. */
  next: number;
  /** How long each slot's dedup claim lives: twice the period, from a minute to 7 days. */
  dedupTtlMs: number;
}

/** The due slots: how many there are, and the newest MAX_SLOTS_PER_FIRE of them, ascending. */
interface Candidates {
  count: number;
  newest: number[];
}

function everyCandidates(timing: ScheduleTiming & { every: number }, lower: number, upper: number): Candidates {
  const first = firstSlotFrom(timing, lower);
  if (first === null || first > upper) return { count: 0, newest: [] };
  const count = Math.floor((upper - first) / timing.every) + 1;
  const kept = Math.min(count, MAX_SLOTS_PER_FIRE);
  const newest = Array.from({ length: kept }, (_, i) => first + (count - kept + i) * timing.every);
  return { count, newest };
}

/** Keeps the newest MAX_SLOTS_PER_FIRE slots of an ascending walk. */
function keepNewest(newest: number[], slot: number): void {
  newest.push(slot);
  if (newest.length > MAX_SLOTS_PER_FIRE) newest.shift();
}

/** A walk through the cron slots from `from` up to `upper`, of at most `maxSteps` steps. */
interface CronWalk extends Candidates {
  /** Whether it reached `upper` (every slot up to it counted), rather than running out of steps. */
  complete: boolean;
  /** Where it stopped: the first slot it did not count (null: none left before `endAt`). */
  stoppedAt: number | null;
}

/** Steps through the cron slots in [from, upper], counting them and keeping the newest, for at most `maxSteps` steps. */
function walkCron(timing: ScheduleTiming, from: number, upper: number, maxSteps: number): CronWalk {
  const newest: number[] = [];
  let count = 0;
  let slot = firstSlotFrom(timing, from);
  while (slot !== null && slot <= upper && count < maxSteps) {
    count += 1;
    keepNewest(newest, slot);
    slot = firstSlotFrom(timing, slot + 1);
  }
  return { count, newest, complete: slot === null || slot > upper, stoppedAt: slot };
}

/**
 * The cron slots in [lower, upper]. Each step costs croner a date computation (about 50 µs), so
 * past `maxCount` steps the count stops (it is then a lower bound, which only the `missed`
 * counter sees) and the newest slots are searched for from `upper` backwards.
 */
function cronCandidates(timing: ScheduleTiming, lower: number, upper: number, maxCount: number): Candidates {
  const walk = walkCron(timing, lower, upper, maxCount);
  if (walk.complete || walk.stoppedAt === null) return walk;
  const tail = newestCronSlots(timing, walk.stoppedAt, upper);
  return { count: walk.count + tail.count, newest: tail.newest };
}

/** Steps one walk of the search for the newest slots may take. */
const TAIL_STEPS = 5 * MAX_SLOTS_PER_FIRE;

/**
 * The newest MAX_SLOTS_PER_FIRE slots in [from, upper], too many to walk through: a bisection on
 * how far before `upper` a walk starts, between a start that finds too few slots and one that
 * finds more than TAIL_STEPS. Slots are whole seconds apart at least, so it ends within a second's
 * resolution, with the newest slots (all of them when fewer lie after `from`).
 */
function newestCronSlots(timing: ScheduleTiming, from: number, upper: number): Candidates {
  let tooFew = 0; // a distance whose walk found fewer than MAX_SLOTS_PER_FIRE
  let tooMany = Infinity; // a distance whose walk ran out of steps
  let distance = 60_000;
  let found: Candidates = { count: 0, newest: [] };
  while (tooMany - tooFew > 1000) {
    const start = Math.max(from, Math.floor(upper - distance));
    const walk = walkCron(timing, start, upper, TAIL_STEPS);
    if (!walk.complete) {
      tooMany = distance;
    } else {
      found = walk;
      if (walk.newest.length >= MAX_SLOTS_PER_FIRE || start === from) break;
      tooFew = distance;
    }
    distance = tooMany === Infinity ? distance * 4 : (tooFew + tooMany) / 2;
  }
  return { count: found.count, newest: found.newest };
}

function candidatesOf(timing: ScheduleTiming, lower: number, upper: number, maxCronCount: number): Candidates {
  if (lower > upper) return { count: 0, newest: [] };
  if (timing.every !== undefined) return everyCandidates({ ...timing, every: timing.every }, lower, upper);
  return cronCandidates(timing, lower, upper, maxCronCount);
}

/** The slots that fire of the due ones, by the on-time rule and the catch-up policy. */
function slotsToFire(state: PlannedSchedule, newest: number[], nowMs: number): number[] {
  if (newest.length === 0) return [];
  const newestSlot = newest[newest.length - 1];
  const onTime = nowMs - newestSlot <= Math.min(slotPeriodMs(state, newestSlot) / 2, MAX_ON_TIME_MS);
  const inWindow = (slot: number): boolean => nowMs - slot <= state.catchupWindowMs;
  switch (state.catchup) {
    case "none":
      return onTime ? [newestSlot] : [];
    case "latest":
      return onTime || inWindow(newestSlot) ? [newestSlot] : [];
    case "all":
      return newest.filter((slot, i) => inWindow(slot) || (onTime && i === newest.length - 1));
  }
}

function dedupTtlMs(state: PlannedSchedule, slot: number): number {
  return Math.min(MAX_DEDUP_TTL_MS, Math.max(MIN_DEDUP_TTL_MS, 2 * slotPeriodMs(state, slot)));
}

/**
 * Whether the stored `next` is a slot still ahead that the schedule will reach: then no slot is
 * due (`next` is the first after the last plan's) and nothing needs croner. Only the timing moves
 * slots, and a change of timing resets `next` to 0; `endAt` and `limit` may have changed since.
 */
function nextStillRight(state: PlannedSchedule, nowMs: number): boolean {
  return (
    state.next > nowMs &&
    (state.endAt === undefined || state.next <= state.endAt) &&
    (state.limit === undefined || state.count < state.limit)
  );
}

/**
 * The plan for `state` at `nowMs`, or undefined when there is nothing to do: paused, ended, or
 * no slot due and its stored `next` already right. `maxCronCount` bounds the cron slots counted
 * (tests lower it to see the bound without 100,000 croner steps).
 */
export function planFire(state: PlannedSchedule, nowMs: number, maxCronCount = MAX_CRON_COUNT): FirePlan | undefined {
  if (state.paused || state.next === -1) return undefined;
  if (nextStillRight(state, nowMs)) return undefined;
  const lower = Math.max(state.since, state.startAt ?? -Infinity, state.last === undefined ? -Infinity : state.last + 1);
  const upper = Math.min(nowMs, state.endAt ?? Infinity);
  const { count, newest } = candidatesOf(state, lower, upper, maxCronCount);
  let slots = slotsToFire(state, newest, nowMs);
  const missed = count - slots.length;
  const left = state.limit === undefined ? Infinity : Math.max(0, state.limit - state.count);
  if (slots.length > left) slots = slots.slice(0, left);
  const handledThrough = newest.length > 0 ? newest[newest.length - 1] : null;
  const nextFrom = Math.max(lower, handledThrough === null ? -Infinity : handledThrough + 1, Math.floor(nowMs) + 1);
  const next = slots.length >= left ? -1 : (firstSlotFrom(state, nextFrom) ?? -1);
  if (slots.length === 0 && handledThrough === null && next === state.next) return undefined;
  const ttlSlot = slots.length > 0 ? slots[slots.length - 1] : next > 0 ? next : (handledThrough ?? nowMs);
  return { slots, handledThrough, missed, next, dedupTtlMs: dedupTtlMs(state, ttlSlot) };
}
