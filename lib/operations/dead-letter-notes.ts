/**
 * Why the first messages of a dead-letter queue stopped, without their bodies
 * (lua/deadLetterNotes-2.lua): what the dashboard groups into its reasons histogram.
 */
import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import { parseWhy } from "./message-reply";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import type { DeadLetterInfo } from "../types";

export interface DeadLetterNotes {
  /** Messages in the queue. */
  total: number;
  /** The note of each message looked at, in receive order; undefined for a message without one. */
  notes: Array<DeadLetterInfo | undefined>;
}

/** The notes of the first `lookAtMost` messages of `qname`. */
export function deadLetterNotes(layout: KeyLayout, qname: unknown, lookAtMost: number): Operation<DeadLetterNotes> {
  const keys = layout.queue(validateQname(qname));
  return {
    script: "deadLetterNotes",
    keys: [keys.messages, keys.hash],
    args: [integerArg(lookAtMost)],
    parse(reply) {
      failIfCode(reply);
      const [total, ...notes] = reply as unknown[];
      return { total: Number(total), notes: notes.map(parseWhy) };
    },
  };
}
