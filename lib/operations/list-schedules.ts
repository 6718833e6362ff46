/**
 * listSchedulesAsync: a queue's schedules with their state (lua/listSchedules-2.lua, read-only),
 * and `readSchedules`, the same read as the firers plan from it (lib/schedules/).
 */
import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import type { ListSchedulesOptions, ScheduleInfo } from "../types";
import { defineOperation } from "./descriptor";
import { parseStoredSchedule, toScheduleInfo } from "../schedules/stored-schedule";
import type { StoredSchedule } from "../schedules/stored-schedule";

/** One read of a queue's schedules: the server's time (epoch ms) and each schedule as stored, sorted by name. */
export interface SchedulesReading {
  readonly nowMs: number;
  readonly stored: StoredSchedule[];
}

/** Orders by name, as listSchedules lists schedules. */
export const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The schedules as stored, with the server's time they were read at. A field that is not a JSON
 * object (written by hand) is left out rather than failing every firer's pass.
 */
export function readSchedules(layout: KeyLayout, qname: unknown): Operation<SchedulesReading> {
  const keys = layout.queue(validateQname(qname));
  return {
    script: "listSchedules",
    keys: [keys.messages, keys.hash],
    args: [],
    parse(reply) {
      failIfCode(reply);
      const [now, ...fields] = (reply as unknown[]).map(String);
      const stored: StoredSchedule[] = [];
      for (let i = 0; i + 1 < fields.length; i += 2) {
        try {
          stored.push(parseStoredSchedule(fields[i], fields[i + 1]));
        } catch {
          // Left out (above); the doctor does not judge schedule definitions.
        }
      }
      return { nowMs: Number(now), stored: stored.sort(byName) };
    },
  };
}

/** The public view, sorted by name; a next slot not yet settled is planned from the server's time read with it. */
export function listSchedules(layout: KeyLayout, options: Partial<ListSchedulesOptions>): Operation<ScheduleInfo[]> {
  const reading = readSchedules(layout, options.qname);
  return {
    ...reading,
    parse(reply) {
      const { nowMs, stored } = reading.parse(reply);
      return stored.map((schedule) => toScheduleInfo(schedule, nowMs));
    },
  };
}

/** listSchedulesAsync: resolves the queue's schedules; rejects `queueNotFound` for a missing queue. */
export const listSchedulesOperation = defineOperation<ListSchedulesOptions, ScheduleInfo[]>({
  optionKeys: { qname: true },
  build: ({ layout }, options) => listSchedules(layout, options),
});
