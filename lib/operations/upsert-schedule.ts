/**
 * upsertScheduleAsync: writes a schedule's definition (lua/upsertSchedule-2.lua), never a message:
 * the firers (Workers, a Scheduler) send them with lua/fireSchedule-n.lua. Every option is checked
 * before any round trip (lib/schedules/schedule-rules.ts); the script checks the message against
 * the queue's maxsize and the queue's 100 schedules, and publishes a control wake
 * (`~sched:<server ms>`) the descriptor hands to this process's firers too.
 */
import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import type { UpsertScheduleOptions } from "../types";
import { defineOperation } from "./descriptor";
import { rsmqError } from "../errors/rsmq-errors";
import { scheduleTimingKey, validateSchedule } from "../schedules/schedule-rules";

/** The most schedules a queue holds (each firer's pass reads them all). */
export const MAX_SCHEDULES_PER_QUEUE = 100;

/** Whether the upsert created the schedule (1) or replaced one (0), and the control wake it published. */
export interface UpsertedSchedule {
  readonly created: 0 | 1;
  readonly wake: string;
}

/** `nowMs` (the client's clock) only refuses a cron expression that never runs again. */
export function upsertSchedule(
  layout: KeyLayout,
  options: Partial<UpsertScheduleOptions>,
  nowMs = Date.now(),
): Operation<UpsertedSchedule> {
  const keys = layout.queue(validateQname(options.qname));
  const { name, ...definition } = validateSchedule(options, nowMs);
  return {
    script: "upsertSchedule",
    keys: [keys.messages, keys.hash],
    args: [
      name,
      JSON.stringify(definition),
      scheduleTimingKey(definition),
      keys.wakeChannel,
      layout.cluster ? "1" : "",
      String(definition.message.length),
    ],
    parse(reply) {
      if (reply === -4) {
        throw rsmqError("invalidValue", `A queue holds at most ${MAX_SCHEDULES_PER_QUEUE} schedules: remove one before adding "${name}"`);
      }
      failIfCode(reply);
      const [created, wake] = reply as [number, string];
      return { created: created === 1 ? 1 : 0, wake: String(wake) };
    },
  };
}

/** upsertScheduleAsync: resolves 1 when it created the schedule, 0 when it replaced one. */
export const upsertScheduleOperation = defineOperation<UpsertScheduleOptions, UpsertedSchedule, 0 | 1>({
  optionKeys: {
    qname: true,
    name: true,
    every: true,
    cron: true,
    tz: true,
    message: true,
    delay: true,
    priority: true,
    catchup: true,
    catchupWindowMs: true,
    overlap: true,
    startAt: true,
    endAt: true,
    limit: true,
  },
  build: ({ layout }, options) => upsertSchedule(layout, options),
  wakes: ({ wake }) => wake,
  result: ({ created }) => created,
});
