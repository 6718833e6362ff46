/** rateLimitQueueAsync: blocks the queue's receives for a while (lua/rateLimitQueue-2.lua). */
import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import { validateBlockMs } from "./control-rules";
import type { RateLimitQueueOptions } from "../types";
import { defineOperation } from "./descriptor";

export function rateLimitQueue(layout: KeyLayout, options: Partial<RateLimitQueueOptions>): Operation<1> {
  const qname = validateQname(options.qname);
  const ms = validateBlockMs(options.ms);
  const keys = layout.queue(qname);
  return {
    script: "rateLimitQueue",
    keys: [keys.messages, keys.hash],
    args: [integerArg(ms)],
    parse(reply) {
      failIfCode(reply);
      return 1;
    },
  };
}

/** rateLimitQueueAsync: resolves 1; receives are blocked until now + ms, or a later block in force. */
export const rateLimitQueueOperation = defineOperation<RateLimitQueueOptions, 1>({
  optionKeys: { qname: true, ms: true },
  build: ({ layout }, options) => rateLimitQueue(layout, options),
});
