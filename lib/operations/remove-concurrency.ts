/**
 * removeConcurrencyAsync: removes the queue's concurrency limit, its `maxed` mark and its leases
 * and, when it had a limit, publishes a control wake (`~free:<server ms>`) so consumers it held
 * back look again at once (lua/removeConcurrency-3.lua); the descriptor hands the same text to
 * this process's consumers.
 */
import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import type { RemoveConcurrencyOptions } from "../types";
import { defineOperation } from "./descriptor";

/** Whether the queue had a limit, and the control wake published ("" for none). */
export interface RemovedConcurrency {
  readonly removed: 0 | 1;
  readonly wake: string;
}

export function removeConcurrency(layout: KeyLayout, options: Partial<RemoveConcurrencyOptions>): Operation<RemovedConcurrency> {
  const keys = layout.queue(validateQname(options.qname));
  return {
    script: "removeConcurrency",
    keys: [keys.messages, keys.hash, keys.leases],
    args: [keys.wakeChannel, layout.cluster ? "1" : ""],
    parse(reply) {
      failIfCode(reply);
      const [removed, wake] = reply as [number, string];
      return { removed: removed === 1 ? 1 : 0, wake };
    },
  };
}

/** removeConcurrencyAsync: resolves 1 when the queue had a concurrency limit, else 0. */
export const removeConcurrencyOperation = defineOperation<RemoveConcurrencyOptions, RemovedConcurrency, 0 | 1>({
  optionKeys: { qname: true },
  build: ({ layout }, options) => removeConcurrency(layout, options),
  wakes: ({ wake }) => wake !== "" && wake,
  result: ({ removed }) => removed,
});
