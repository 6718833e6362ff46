/**
 * Moves a message into a dead-letter queue in one script (lua/deadLetter-5.lua), for queues whose
 * keys share a slot. Why it stopped travels as a JSON object in the dead-letter queue's hash, field
 * `<id>:dl`, which rsmq clients never read.
 */
import { integerArg } from "./operation";
import type { Operation } from "./operation";
import { QUEUE_DEFAULTS } from "./create-queue";
import type { KeyLayout } from "../keys";
import type { DeadLetterInfo } from "../types";

/** What the worker records when a message stops; the script adds `at`. */
export type StopRecord = Omit<DeadLetterInfo, "at">;

/** Resolves 1 when the message was moved, 0 when it was no longer in `source`. A message that expired also counts in the source's `totalexpired`. */
export function deadLetter(layout: KeyLayout, source: string, dlq: string, id: string, why: StopRecord): Operation<0 | 1> {
  const from = layout.queue(source);
  const to = layout.queue(dlq);
  return {
    script: "deadLetter",
    commandKind: "settle",
    keys: [from.messages, from.hash, to.messages, to.hash, to.registry],
    // The defaults stand in for a setting the source queue's hash lacks, as createQueue's would.
    args: [
      id,
      dlq,
      JSON.stringify(why),
      ...[QUEUE_DEFAULTS.vt, QUEUE_DEFAULTS.delay, QUEUE_DEFAULTS.maxsize].map(integerArg),
      ...(why.reason === "expired" ? ["x"] : []),
    ],
    parse: (reply) => (reply === 1 ? 1 : 0),
  };
}
