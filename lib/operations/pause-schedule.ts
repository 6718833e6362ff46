/**
 * pauseScheduleAsync and resumeScheduleAsync (lua/pauseSchedule-2.lua): a paused schedule fires
 * nothing; a resumed one counts its slots from the resume, so the slots of the pause are neither
 * sent nor counted missed. Each change publishes a control wake (`~sched:<server ms>`) the
 * descriptor hands to this process's firers too.
 */
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import type { ScheduleNameOptions } from "../types";
import { defineOperation } from "./descriptor";
import { validateScheduleName } from "../schedules/schedule-rules";
import { parseScheduleChange } from "./remove-schedule";
import type { ScheduleChange } from "./remove-schedule";

/** `pause` true pauses, false resumes; rejects `scheduleNotFound` when the queue has none of that name. */
export function pauseSchedule(layout: KeyLayout, options: Partial<ScheduleNameOptions>, pause: boolean): Operation<ScheduleChange> {
  const keys = layout.queue(validateQname(options.qname));
  const name = validateScheduleName(options.name);
  return {
    script: "pauseSchedule",
    keys: [keys.messages, keys.hash],
    args: [name, pause ? "1" : "", keys.wakeChannel, layout.cluster ? "1" : ""],
    parse: parseScheduleChange,
  };
}

/** pauseScheduleAsync: resolves 1 when it paused the schedule, 0 when it was paused already. */
export const pauseScheduleOperation = defineOperation<ScheduleNameOptions, ScheduleChange, 0 | 1>({
  optionKeys: { qname: true, name: true },
  build: ({ layout }, options) => pauseSchedule(layout, options, true),
  wakes: ({ wake }) => wake !== "" && wake,
  result: ({ changed }) => changed,
});

/** resumeScheduleAsync: resolves 1 when it resumed the schedule, 0 when it was not paused. */
export const resumeScheduleOperation = defineOperation<ScheduleNameOptions, ScheduleChange, 0 | 1>({
  optionKeys: { qname: true, name: true },
  build: ({ layout }, options) => pauseSchedule(layout, options, false),
  wakes: ({ wake }) => wake !== "" && wake,
  result: ({ changed }) => changed,
});
