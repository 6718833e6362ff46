/**
 * setConcurrencyAsync: writes the queue's `concurrency` field, the most messages in flight at once
 * with rsmq-next consumers (lua/setConcurrency-2.lua, lua/shared/leases.lua), and publishes a
 * control wake (`~free:<server ms>`) so consumers an older, tighter limit held back look again at
 * once; the descriptor hands the same text to this process's consumers.
 */
import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import { validateConcurrency } from "./receipt-rules";
import type { SetConcurrencyOptions } from "../types";
import { defineOperation } from "./descriptor";

/** Resolves the control wake it published. */
export function setConcurrency(layout: KeyLayout, options: Partial<SetConcurrencyOptions>): Operation<string> {
  const qname = validateQname(options.qname);
  const max = validateConcurrency(options.max);
  const keys = layout.queue(qname);
  return {
    script: "setConcurrency",
    keys: [keys.messages, keys.hash],
    args: [max, keys.wakeChannel, layout.cluster ? "1" : ""],
    parse(reply) {
      failIfCode(reply);
      return String((reply as [number, string])[1]);
    },
  };
}

/** setConcurrencyAsync: resolves 1. */
export const setConcurrencyOperation = defineOperation<SetConcurrencyOptions, string, 1>({
  optionKeys: { qname: true, max: true },
  build: ({ layout }, options) => setConcurrency(layout, options),
  wakes: (wake) => wake,
  result: () => 1,
});
