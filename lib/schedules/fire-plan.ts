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

/**
 * Steps through the cron slots in [lower, upper], keeping the newest. Past MAX_CRON_COUNT steps
 * it jumps to shortly before `upper` (by the mean gap seen so far) for the newest slots: the count
 * is then a lower bound, which only the `missed` counter sees.
 */
function cronCandidates(timing: ScheduleTiming, lower: number, upper: number): Candidates {
  const newest: number[] = [];
  let count = 0;
  let slot = firstSlotFrom(timing, lower);
  const firstSlot = slot;
  while (slot !== null && slot <= upper) {
    if (count === MAX_CRON_COUNT && firstSlot !== null) {
      const meanGap = Math.max(1, (slot - firstSlot) / count);
      const jumpTo = Math.max(slot, Math.floor(upper - 2 * MAX_SLOTS_PER_FIRE * meanGap));
      newest.length = 0;
      slot = firstSlotFrom(timing, jumpTo);
      for (let steps = 0; slot !== null && slot <= upper && steps < MAX_CRON_COUNT; steps++) {
        count += 1;
        newest.push(slot);
        if (newest.length > MAX_SLOTS_PER_FIRE) newest.shift();
        slot = nextCronSlot(timing, slot);
      }
      return { count, newest };
    }
    count += 1;
    newest.push(slot);
    if (newest.length > MAX_SLOTS_PER_FIRE) newest.shift();
    slot = nextCronSlot(timing, slot);
  }
  return { count, newest };
}

function nextCronSlot(timing: ScheduleTiming, slot: number): number | null {
  return firstSlotFrom(timing, slot + 1);
}

function candidatesOf(timing: ScheduleTiming, lower: number, upper: number): Candidates {
  if (lower > upper) return { count: 0, newest: [] };
  if (timing.every !== undefined) return everyCandidates({ ...timing, every: timing.every }, lower, upper);
  return cronCandidates(timing, lower, upper);
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
 * The plan for `state` at `nowMs`, or undefined when there is nothing to do: paused, ended, or
 * no slot due and its stored `next` already right.
 */
export function planFire(state: PlannedSchedule, nowMs: number): FirePlan | undefined {
  if (state.paused || state.next === -1) return undefined;
  const lower = Math.max(state.since, state.startAt ?? -Infinity, state.last === undefined ? -Infinity : state.last + 1);
  const upper = Math.min(nowMs, state.endAt ?? Infinity);
  const { count, newest } = candidatesOf(state, lower, upper);
  let slots = slotsToFire(state, newest, nowMs);
  const missed = count - slots.length;
  const left = state.limit === undefined ? Infinity : Math.max(0, state.limit - state.count);
  if (slots.length > left) slots = slots.slice(0, left);
  const handledThrough = count > 0 ? newest[newest.length - 1] : null;
  const nextFrom = Math.max(lower, handledThrough === null ? -Infinity : handledThrough + 1, Math.floor(nowMs) + 1);
  const next = slots.length >= left ? -1 : (firstSlotFrom(state, nextFrom) ?? -1);
  if (slots.length === 0 && handledThrough === null && next === state.next) return undefined;
  const ttlSlot = slots.length > 0 ? slots[slots.length - 1] : next > 0 ? next : (handledThrough ?? nowMs);
  return { slots, handledThrough, missed, next, dedupTtlMs: dedupTtlMs(state, ttlSlot) };
}
