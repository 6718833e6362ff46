import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { isGiven, validateExpireTo, validateMaxsize, validateQname, validateRetention, validateSeconds } from "./rsmq-input-rules";
import type { CreateQueueOptions } from "../types";
import { validateDedupWindow } from "./dedup-id";
import { defineOperation } from "./descriptor";

/** Defaults rsmq 0.12.4 applies when an option is absent. */
export const QUEUE_DEFAULTS = { vt: 30, delay: 0, maxsize: 65536 } as const;

/**
 * One script where the registry shares the queue's slot. Otherwise (Redis Cluster) the name is
 * listed first and the queue written second: a crash in between leaves a listed name with no
 * queue, which sends and receives report as queueNotFound and the next createQueue completes;
 * never a queue that takes messages but is not listed.
 */
export function createQueue(layout: KeyLayout, options: Partial<CreateQueueOptions>): Operation<1> {
  const qname = validateQname(options.qname);
  const vt = validateSeconds("vt", isGiven(options.vt) ? options.vt : QUEUE_DEFAULTS.vt);
  const delay = validateSeconds("delay", isGiven(options.delay) ? options.delay : QUEUE_DEFAULTS.delay);
  const maxsize = validateMaxsize(isGiven(options.maxsize) ? options.maxsize : QUEUE_DEFAULTS.maxsize);
  const keys = layout.queue(qname);
  const settings = [integerArg(vt), integerArg(delay), integerArg(maxsize), ...retentionArgs(qname, options)];
  const parse = (reply: unknown): 1 => {
    failIfCode(reply);
    return 1;
  };
  if (layout.registryWithQueues) {
    return { script: "createQueue", keys: [keys.hash, keys.registry], args: [qname, ...settings], parse };
  }
  return {
    before: { args: ["SADD", keys.registry, qname], key: keys.registry },
    script: "createQueueHash",
    keys: [keys.hash],
    args: settings,
    parse,
  };
}

/**
 * The scripts' trailing retention, expireto and dedupwindow arguments, left off when unused so a
 * queue without them is created with rsmq 0.12.4's arguments and fields exactly.
 */
function retentionArgs(qname: string, options: Partial<CreateQueueOptions>): string[] {
  const retention = isGiven(options.retention) ? validateRetention(options.retention) : 0;
  const expireTo = isGiven(options.expireTo) ? validateExpireTo(options.expireTo, qname) : "";
  const window = isGiven(options.dedupWindowMs) ? String(validateDedupWindow(options.dedupWindowMs)) : "";
  const args = [retention > 0 ? integerArg(retention) : "", expireTo, window];
  while (args.length > 0 && args[args.length - 1] === "") args.pop();
  return args;
}

/** createQueueAsync: resolves `1`; rejects `queueExists` when the queue exists. */
export const createQueueOperation = defineOperation<CreateQueueOptions, 1>({
  optionKeys: { qname: true, vt: true, delay: true, maxsize: true, retention: true, expireTo: true, dedupWindowMs: true },
  build: ({ layout }, options) => createQueue(layout, options),
});
