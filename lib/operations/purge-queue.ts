/**
 * purgeQueue: every message of a queue goes (visible, in flight, delayed, and per-message fields
 * left without their message), the queue stays with its settings and counters, in one script that
 * frees the old data lazily (lua/purgeQueue-3.lua says how).
 * A concurrency limit stays; its leases go (a purge frees every slot).
 */
import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { QUEUE_FIELDS } from "./queue-fields";
import { validateQname } from "./rsmq-input-rules";
import type { PurgeQueueOptions } from "../types";
import { defineOperation } from "./descriptor";

export function purgeQueue(layout: KeyLayout, options: Partial<PurgeQueueOptions>): Operation<number> {
  const keys = layout.queue(validateQname(options.qname));
  return {
    script: "purgeQueue",
    keys: [keys.messages, keys.hash, keys.leases],
    // The fields the script keeps: every `:Q` field that is not a message's, from the one list of them.
    args: [...QUEUE_FIELDS],
    parse: (reply: unknown): number => {
      failIfCode(reply);
      return Number(reply);
    },
  };
}

/** purgeQueueAsync: resolves how many messages were removed. Wakes nobody: a purge makes no message due. */
export const purgeQueueOperation = defineOperation<PurgeQueueOptions, number>({
  optionKeys: { qname: true },
  build: ({ layout }, options) => purgeQueue(layout, options),
});
