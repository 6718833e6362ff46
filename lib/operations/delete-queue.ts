import { failIfCode } from "./operation";
import type { Operation } from "./operation";
import type { KeyLayout } from "../keys";
import { validateQname } from "./rsmq-input-rules";
import type { DeleteQueueOptions } from "../types";
import { defineOperation } from "./descriptor";

/**
 * One script where the registry shares the queue's slot. Otherwise (Redis Cluster) the queue goes
 * first and its name second, and only when there was a queue to delete: a delete that finds no
 * queue must not unlist one that a concurrent createQueue (name listed first) is about to write.
 */
export function deleteQueue(layout: KeyLayout, options: Partial<DeleteQueueOptions>): Operation<1> {
  const qname = validateQname(options.qname);
  const keys = layout.queue(qname);
  const parse = (reply: unknown): 1 => {
    failIfCode(reply);
    return 1;
  };
  if (layout.registryWithQueues) {
    return { script: "deleteQueue", keys: [keys.hash, keys.messages, keys.registry, keys.leases], args: [qname], parse };
  }
  return {
    script: "deleteQueueKeys",
    keys: [keys.hash, keys.messages, keys.leases],
    args: [],
    after: { args: ["SREM", keys.registry, qname], key: keys.registry, onlyIf: (reply) => reply === 1 },
    parse,
  };
}

/** deleteQueueAsync: resolves `1`; rejects `queueNotFound`. */
export const deleteQueueOperation = defineOperation<DeleteQueueOptions, 1>({
  optionKeys: { qname: true },
  build: ({ layout }, options) => deleteQueue(layout, options),
});
