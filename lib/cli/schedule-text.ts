/**
 * A schedule as the command line prints it (docs/schedules.md): its timing in the words the
 * options take (`cron "0 2 * * *" Europe/Berlin`, `every 60 s`), its run times as ISO times (UTC),
 * and its state.
 */
import type { ScheduleInfo } from "../types";

/** What fixes a schedule's slots: the cron expression and its zone, or the period. */
export type ScheduleTiming = Pick<ScheduleInfo, "every" | "cron" | "tz">;

/** `cron "0 2 * * *" Europe/Berlin` or `every 60 s` (`every 1.5 s`). */
export function timingText(timing: ScheduleTiming): string {
  if (timing.cron !== undefined) return `cron "${timing.cron}" ${timing.tz}`;
  return `every ${(timing.every ?? 0) / 1000} s`;
}

/** An epoch-ms time as an ISO time, `-` for none. */
export function isoTime(epochMs: number | null | undefined): string {
  return epochMs === null || epochMs === undefined ? "-" : new Date(epochMs).toISOString();
}

/** `paused`, `ended` (past its end, or its limit sent) or `active`. */
export function scheduleState(schedule: Pick<ScheduleInfo, "paused" | "ended">): "paused" | "ended" | "active" {
  if (schedule.ended) return "ended";
  return schedule.paused ? "paused" : "active";
}
