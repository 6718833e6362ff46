/**
 * setRateLimitAsync: writes the queue's `ratelimit` field and resets its state, and publishes a
 * control wake (`~limit:<server ms>`) so consumers an older limit held back look again at once
 * (lua/setRateLimit-2.lua); the descriptor hands the same text to this process's consumers.
 */
import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import { rateLimitField, validateLimits, validateMode } from "./control-rules";
import type { SetRateLimitOptions } from "../types";
import { defineOperation } from "./descriptor";

/** Resolves the control wake it published. */
export function setRateLimit(layout: KeyLayout, options: Partial<SetRateLimitOptions>): Operation<string> {
  const qname = validateQname(options.qname);
  const field = rateLimitField(validateLimits(options.limits), validateMode(options.mode));
  const keys = layout.queue(qname);
  return {
    script: "setRateLimit",
    keys: [keys.messages, keys.hash],
    args: [field, keys.wakeChannel, layout.cluster ? "1" : ""],
    parse(reply) {
      failIfCode(reply);
      return String((reply as [number, string])[1]);
    },
  };
}

/** setRateLimitAsync: resolves 1; every limit starts with its full burst. */
export const setRateLimitOperation = defineOperation<SetRateLimitOptions, string, 1>({
  optionKeys: { qname: true, limits: { max: true, perMs: true, burst: true }, mode: true },
  build: ({ layout }, options) => setRateLimit(layout, options),
  wakes: (wake) => wake,
  result: () => 1,
});
