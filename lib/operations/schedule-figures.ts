/**
 * What the schedule metrics show of each schedule of a queue, from the figures lua/queueStates-n.lua
 * returns with the queue's reading (so a scrape stays one script call): the counts as stored, and
 * the next run as listSchedulesAsync tells it, planned from the server's time where the stored
 * next slot is not settled yet.
 */
import type { ScheduleInfo } from "../types";
import { parseStoredSchedule, toScheduleInfo } from "../schedules/stored-schedule";
import { byName } from "./list-schedules";

/** The part of a schedule's ScheduleInfo (listSchedulesAsync) the schedule metrics show. */
export type ScheduleFigures = Pick<ScheduleInfo, "name" | "count" | "missed" | "overlapped" | "nextRunAt">;

/** The schedules of one queue, sorted by name (as listSchedulesAsync lists them). */
export interface QueueScheduleFigures {
  qname: string;
  schedules: ScheduleFigures[];
}

/**
 * The next run as toScheduleInfo tells it: null when ended (-1) or paused, the stored slot when
 * settled, else planned from `plan` (the stored JSON without its message) at `nowMs`.
 */
function nextRunAt(name: string, next: number, paused: boolean, plan: unknown, nowMs: number): number | null {
  if (next === -1 || paused) return null;
  if (next > 0) return next;
  if (typeof plan !== "string") return null;
  try {
    return toScheduleInfo(parseStoredSchedule(name, plan), nowMs).nextRunAt;
  } catch {
    // A cron schedule in a process without croner (an optional peer), or a definition written by
    // hand the planner cannot read: no next run, rather than no reading (the dashboard's list of
    // queues is this reading too).
    return null;
  }
}

/** One queue's entry of the script's reply: { name, count, missed, overlapped, next, paused, plan } per schedule. */
export function parseScheduleFigures(entry: unknown, nowMs: number): ScheduleFigures[] {
  if (!Array.isArray(entry)) return [];
  const figures = entry.filter(Array.isArray).map((schedule: unknown[]): ScheduleFigures => {
    const [name, count, missed, overlapped, next, paused, plan] = schedule;
    return {
      name: String(name),
      count: Number(count) || 0,
      missed: Number(missed) || 0,
      overlapped: Number(overlapped) || 0,
      nextRunAt: nextRunAt(String(name), Number(next) || 0, paused === "1", plan, nowMs),
    };
  });
  return figures.sort(byName);
}
