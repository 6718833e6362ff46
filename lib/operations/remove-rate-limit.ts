/**
 * removeRateLimitAsync: removes the queue's rate limit and its state and, when it had one,
 * publishes a control wake (`~limit:<server ms>`) so consumers it held back look again at once
 * (lua/removeRateLimit-2.lua); the descriptor hands the same text to this process's consumers.
 */
import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import type { RemoveRateLimitOptions } from "../types";
import { defineOperation } from "./descriptor";

/** Whether the queue had a limit, and the control wake published ("" for none). */
export interface RemovedRateLimit {
  readonly removed: 0 | 1;
  readonly wake: string;
}

export function removeRateLimit(layout: KeyLayout, options: Partial<RemoveRateLimitOptions>): Operation<RemovedRateLimit> {
  const keys = layout.queue(validateQname(options.qname));
  return {
    script: "removeRateLimit",
    keys: [keys.messages, keys.hash],
    args: [keys.wakeChannel, layout.cluster ? "1" : ""],
    parse(reply) {
      failIfCode(reply);
      const [removed, wake] = reply as [number, string];
      return { removed: removed === 1 ? 1 : 0, wake };
    },
  };
}

/** removeRateLimitAsync: resolves 1 when the queue had a rate limit, else 0. */
export const removeRateLimitOperation = defineOperation<RemoveRateLimitOptions, RemovedRateLimit, 0 | 1>({
  optionKeys: { qname: true },
  build: ({ layout }, options) => removeRateLimit(layout, options),
  wakes: ({ wake }) => wake !== "" && wake,
  result: ({ removed }) => removed,
});
