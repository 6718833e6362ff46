/**
 * A schedule's slots: the instants (epoch ms, server clock) it sends a message for. An `every`
 * schedule's slots are `anchor + k * every`, computed, never enumerated, so they never drift; a
 * `cron` schedule's come from croner in its zone (lib/schedules/cron.ts).
 */
import { cronSlotAfter } from "./cron";

/** What decides a schedule's slots (a stored schedule is one). */
export interface ScheduleTiming {
  every?: number;
  cron?: string;
  tz: string;
  /** The first slot of an `every` schedule (its `startAt`, else the time of its first upsert). */
  anchor?: number;
  /** No slot before this. */
  startAt?: number;
  /** No slot after this. */
  endAt?: number;
}

/** An `every` schedule's anchor: stored by the upsert script; `startAt`, else 0, if ever missing. */
function anchorOf(timing: ScheduleTiming): number {
  return timing.anchor ?? timing.startAt ?? 0;
}

/** The first slot at or after `fromMs` (and at or after `startAt`), or null when it would lie after `endAt`. */
export function firstSlotFrom(timing: ScheduleTiming, fromMs: number): number | null {
  const from = Math.max(fromMs, timing.startAt ?? -Infinity);
  let slot: number;
  if (timing.every !== undefined) {
    const anchor = anchorOf(timing);
    slot = anchor + Math.max(0, Math.ceil((from - anchor) / timing.every)) * timing.every;
  } else if (timing.cron !== undefined) {
    slot = cronSlotAfter(timing.cron, timing.tz, from - 1);
  } else {
    throw new Error("A schedule's timing needs `every` or `cron`");
  }
  return timing.endAt !== undefined && slot > timing.endAt ? null : slot;
}

/** The gap from `slot` to the slot after it, ignoring `endAt`: for the on-time tolerance and the dedup TTL. */
export function slotPeriodMs(timing: ScheduleTiming, slot: number): number {
  if (timing.every !== undefined) return timing.every;
  if (timing.cron !== undefined) return cronSlotAfter(timing.cron, timing.tz, slot) - slot;
  throw new Error("A schedule's timing needs `every` or `cron`");
}
