/**
 * A firer's ScheduleStore on a RedisSMQ instance: the read is lua/listSchedules-2.lua
 * (read-only), a fire lua/fireSchedule-n.lua, each one command on the instance's connection. A
 * fire that stored messages tells this process's consumers of the queue at once, as a send does
 * (the script publishes the same wake for the other processes).
 */
import type { RedisSMQInternals } from "../internals";
import { readSchedules } from "../operations/list-schedules";
import { fireSchedule } from "../operations/fire-schedule";
import { notifyQueueActivity } from "../wakes/wake-hub";
import type { ScheduleStore } from "./schedule-firer";

export function redisScheduleStore(internals: Pick<RedisSMQInternals, "run" | "layout" | "notify" | "ns">, qname: string): ScheduleStore {
  const { layout, notify } = internals;
  return {
    read: () =>
      internals
        .run(() => readSchedules(layout, qname))
        .then(
          ({ nowMs, stored }) => ({ nowMs, schedules: stored }),
          // A queue not created yet (or deleted) has no schedules: a Scheduler waits for it.
          (error: unknown) => {
            if (error instanceof Error && error.name === "queueNotFound") return null;
            throw error;
          },
        ),
    fire: async (stored, plan) => {
      const outcome = await internals.run(() => fireSchedule(layout, notify, qname, stored, plan));
      if (outcome.ids.length > 0) notifyQueueActivity(internals.ns, qname, outcome.ids[0]);
      // Removed since the read: nothing left to fire or to wait for.
      if (outcome.status === "gone") return { status: "done", next: -1, sent: [] };
      return { status: outcome.status, next: outcome.next, sent: outcome.sent };
    },
  };
}
