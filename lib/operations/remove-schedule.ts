/**
 * removeScheduleAsync: removes a schedule of a queue (lua/removeSchedule-2.lua) and publishes a
 * control wake (`~sched:<server ms>`) so the firers drop it at once; the claims of the slots it
 * fired stay until their TTL, so a schedule of the same name written again never sends them twice.
 */
import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import type { ScheduleNameOptions } from "../types";
import { defineOperation } from "./descriptor";
import { validateScheduleName } from "../schedules/schedule-rules";

/** Whether a schedule changed (1) or was already so (0), and the control wake published ("" for none). */
export interface ScheduleChange {
  readonly changed: 0 | 1;
  readonly wake: string;
}

/** The reply `{ 0 | 1, wake }` of the schedule control scripts, after the codes. */
export function parseScheduleChange(reply: unknown): ScheduleChange {
  failIfCode(reply);
  const [changed, wake] = reply as [number, string];
  return { changed: changed === 1 ? 1 : 0, wake: String(wake) };
}

export function removeSchedule(layout: KeyLayout, options: Partial<ScheduleNameOptions>): Operation<ScheduleChange> {
  const keys = layout.queue(validateQname(options.qname));
  const name = validateScheduleName(options.name);
  return {
    script: "removeSchedule",
    keys: [keys.messages, keys.hash],
    args: [name, keys.wakeChannel, layout.cluster ? "1" : ""],
    parse: parseScheduleChange,
  };
}

/** removeScheduleAsync: resolves 1 when it removed the schedule, 0 when the queue had none of that name. */
export const removeScheduleOperation = defineOperation<ScheduleNameOptions, ScheduleChange, 0 | 1>({
  optionKeys: { qname: true, name: true },
  build: ({ layout }, options) => removeSchedule(layout, options),
  wakes: ({ wake }) => wake !== "" && wake,
  result: ({ changed }) => changed,
});
