import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import { toQueueMessage } from "./message-reply";
import type { KeyLayout } from "../keys";
import { isGiven, validateBatchSize, validateQname, validateSeconds } from "./rsmq-input-rules";
import type { QueueMessage, ReceiveMessageOptions } from "../types";

/** What the receive script found: the messages, and when fewer than asked, when the next is due. */
export interface ReceivedBatch {
  messages: QueueMessage[];
  /** Milliseconds until the earliest message is visible; null for an empty queue; undefined when not looked up. */
  nextDueMs: number | null | undefined;
  /** The visibility timeout applied, in seconds (the queue's when none was given). */
  vt: number;
}

const EMPTY_QUEUE = -1;
const NOT_LOOKED_UP = -2;

export function receiveMessages(layout: KeyLayout, options: Partial<ReceiveMessageOptions>, count: unknown): Operation<ReceivedBatch> {
  const qname = validateQname(options.qname);
  const vt = isGiven(options.vt) ? integerArg(validateSeconds("vt", options.vt)) : "";
  const batchSize = validateBatchSize("count", count);
  const keys = layout.queue(qname);
  return {
    script: "receiveMessage",
    keys: [keys.messages, keys.hash],
    args: receiveArgs(vt, batchSize),
    parse(reply) {
      failIfCode(reply);
      const [nextDue, appliedVt, ...fields] = reply as unknown[];
      const messages: QueueMessage[] = [];
      for (let i = 0; i < fields.length; i += 4) {
        messages.push(toQueueMessage(fields[i], fields[i + 1], fields[i + 2], fields[i + 3]));
      }
      const code = Number(nextDue);
      const nextDueMs = code === EMPTY_QUEUE ? null : code === NOT_LOOKED_UP ? undefined : code;
      return { messages, nextDueMs, vt: Number(appliedVt) };
    },
  };
}

/**
 * The script's ARGV (see lua/receiveMessage-2.lua) without the trailing ones it does not need:
 * each argument costs the server a string to build, and receiveMessage (count 1, the queue's vt)
 * needs none.
 */
function receiveArgs(vt: string, batchSize: number): string[] {
  if (batchSize !== 1) return [vt, integerArg(batchSize)];
  return vt === "" ? [] : [vt];
}
