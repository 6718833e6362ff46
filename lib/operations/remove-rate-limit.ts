/** removeRateLimitAsync: removes the queue's rate limit and its state (lua/removeRateLimit-2.lua). */
import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import type { RemoveRateLimitOptions } from "../types";
import { defineOperation } from "./descriptor";

export function removeRateLimit(layout: KeyLayout, options: Partial<RemoveRateLimitOptions>): Operation<0 | 1> {
  const keys = layout.queue(validateQname(options.qname));
  return {
    script: "removeRateLimit",
    keys: [keys.messages, keys.hash],
    args: [],
    parse(reply) {
      failIfCode(reply);
      return reply === 1 ? 1 : 0;
    },
  };
}

/** removeRateLimitAsync: resolves 1 when the queue had a rate limit, else 0. */
export const removeRateLimitOperation = defineOperation<RemoveRateLimitOptions, 0 | 1>({
  optionKeys: { qname: true },
  build: ({ layout }, options) => removeRateLimit(layout, options),
});
