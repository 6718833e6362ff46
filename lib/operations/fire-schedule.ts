/**
 * A fire of a schedule (lua/fireSchedule-n.lua), for the firers (lib/schedules/): no public
 * method. The script stores the plan's messages only while the plan is still the schedule's next
 * step (its `v`, its `last`, the server's clock), and claims each slot's dedup key, so any number
 * of processes may plan and fire the same schedule: each slot is sent at most once.
 */
import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import { sortedIdParts } from "./send-messages";
import { dedupKey } from "./dedup-id";
import { notificationArgs } from "./send-notification";
import type { SendNotification } from "./send-notification";
import type { StoredSchedule } from "../schedules/stored-schedule";
import type { FirePlan } from "../schedules/fire-plan";

/**
 * What a fire did:
 * - `fired`: the plan applied; `ids` are the messages stored (none for a slot whose claim was
 *   taken, or past `limit`; none either when the plan only counted missed slots);
 * - `skipped`: `overlap: "skip"` while the last message is still in the queue: the slots counted
 *   in `overlapped`, nothing sent;
 * - `done`: another process handled these slots first, or the plan only settled `next`;
 * - `stale`: the schedule changed since it was read (an upsert, a pause, a resume), or is paused;
 * - `early`: a slot is later than the server's now (a host clock ahead): nothing written;
 * - `gone`: the schedule was removed.
 * `next` is the schedule's stored next slot after the call (0 unknown, -1 none; 0 when gone).
 */
export interface FireOutcome {
  readonly status: "fired" | "skipped" | "done" | "stale" | "early" | "gone";
  readonly next: number;
  readonly ids: string[];
  /** The messages stored, each with the slot it was sent for (an id ends with the random part drawn for its slot). */
  readonly sent: ReadonlyArray<{ slot: number; id: string }>;
}

/** An id is 10 characters of the server's time, then the random part the client drew. */
const ID_TIME_CHARS = 10;

const STATUSES: ReadonlySet<string> = new Set(["fired", "skipped", "done", "stale", "early"]);

/** The dedupId of a slot: its claim's key is sendMessageOnce's for that id (dedup-id.ts). */
export function slotDedupId(name: string, slotMs: number): string {
  return `~sched:${name}:${integerArg(slotMs)}`;
}

/**
 * Applies `plan` to the schedule `stored` of `qname`. `notify` is what a send of this instance
 * publishes (rsmq's realtime count, a wake, or nothing).
 */
export function fireSchedule(
  layout: KeyLayout,
  notify: SendNotification,
  qname: string,
  stored: StoredSchedule,
  plan: FirePlan,
): Operation<FireOutcome> {
  const keys = layout.queue(validateQname(qname));
  const [channel, kind] = notificationArgs(keys, notify, layout.cluster);
  // Sorted, so the ids of one fire (which share the server's time) sort in slot order.
  const randomParts = sortedIdParts(plan.slots.length);
  return {
    script: "fireSchedule",
    keys: [keys.messages, keys.hash, ...plan.slots.map((slot) => dedupKey(keys, slotDedupId(stored.name, slot), ""))],
    args: [
      stored.name,
      integerArg(stored.v),
      plan.handledThrough === null ? "" : integerArg(plan.handledThrough),
      integerArg(plan.next),
      integerArg(plan.missed),
      integerArg(plan.dedupTtlMs),
      kind,
      channel,
      ...plan.slots.flatMap((slot, index) => [integerArg(slot), randomParts[index]]),
    ],
    parse(reply) {
      failIfCode(reply);
      if (reply === 0) return { status: "gone", next: 0, ids: [], sent: [] };
      const [status, next, ...stored] = reply as [string, number, ...string[]];
      if (!STATUSES.has(String(status))) throw new Error(`rsmq-next: unexpected fireSchedule reply ${JSON.stringify(reply)}`);
      const ids = stored.map(String);
      const slotOf = new Map(randomParts.map((part, index) => [part, plan.slots[index]]));
      const sent = ids.flatMap((id) => {
        const slot = slotOf.get(id.slice(ID_TIME_CHARS));
        return slot === undefined ? [] : [{ slot, id }];
      });
      return { status: String(status) as FireOutcome["status"], next: Number(next), ids, sent };
    },
  };
}
