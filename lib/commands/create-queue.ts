import { failIfCode, integerArg, type Command } from "./command";
import { queueKeys } from "../keys";
import { isGiven, validateMaxsize, validateQname, validateSeconds } from "../validation";
import type { CreateQueueOptions } from "../types";

/** Defaults rsmq 0.12.4 applies when an option is absent. */
export const QUEUE_DEFAULTS = { vt: 30, delay: 0, maxsize: 65536 } as const;

export function createQueue(ns: string, options: Partial<CreateQueueOptions>): Command<1> {
  const qname = validateQname(options.qname);
  const vt = validateSeconds("vt", isGiven(options.vt) ? options.vt : QUEUE_DEFAULTS.vt);
  const delay = validateSeconds("delay", isGiven(options.delay) ? options.delay : QUEUE_DEFAULTS.delay);
  const maxsize = validateMaxsize(isGiven(options.maxsize) ? options.maxsize : QUEUE_DEFAULTS.maxsize);
  const keys = queueKeys(ns, qname);
  return {
    script: "createQueue",
    keys: [keys.hash, keys.registry],
    args: [qname, integerArg(vt), integerArg(delay), integerArg(maxsize)],
    parse(reply) {
      failIfCode(reply);
      return 1;
    },
  };
}
