/** setRateLimitAsync: writes the queue's `ratelimit` field and resets its state (lua/setRateLimit-2.lua). */
import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import { rateLimitField, validateLimits, validateMode } from "./control-rules";
import type { SetRateLimitOptions } from "../types";
import { defineOperation } from "./descriptor";

export function setRateLimit(layout: KeyLayout, options: Partial<SetRateLimitOptions>): Operation<1> {
  const qname = validateQname(options.qname);
  const field = rateLimitField(validateLimits(options.limits), validateMode(options.mode));
  const keys = layout.queue(qname);
  return {
    script: "setRateLimit",
    keys: [keys.messages, keys.hash],
    args: [field],
    parse(reply) {
      failIfCode(reply);
      return 1;
    },
  };
}

/** setRateLimitAsync: resolves 1; every limit starts with its full burst. */
export const setRateLimitOperation = defineOperation<SetRateLimitOptions, 1>({
  optionKeys: { qname: true, limits: { max: true, perMs: true, burst: true }, mode: true },
  build: ({ layout }, options) => setRateLimit(layout, options),
});
