/**
 * The dead-letter commands: the atomic move, the first half of the two-step move (for queues that
 * cannot share a script), peeking, and redrive. Why a message stopped travels as a JSON object in
 * the dead-letter queue's hash, field `<id>:dl`, which rsmq clients never read.
 */
import { failIfCode, integerArg, type Command } from "./command";
import { queueKeys } from "../keys";
import { validateBatchSize, validateQname } from "../validation";
import type { DeadLetterInfo, PeekedMessage } from "../types";

/** What the worker records when a message stops; the script adds `at`. */
export type StopRecord = Omit<DeadLetterInfo, "at">;

export function deadLetter(ns: string, source: string, dlq: string, id: string, why: StopRecord): Command<0 | 1> {
  const from = queueKeys(ns, source);
  const to = queueKeys(ns, dlq);
  return {
    script: "deadLetter",
    keys: [from.messages, from.hash, to.messages, to.hash, to.registry],
    args: [id, dlq, JSON.stringify(why)],
    parse: (reply) => (reply === 1 ? 1 : 0),
  };
}

/** Settings for a dead-letter queue created on demand. */
export interface QueueSettings {
  vt: number;
  delay: number;
  maxsize: number;
}

export function deadLetterCopy(ns: string, dlq: string, id: string, body: string, why: StopRecord, settings: QueueSettings): Command<1> {
  const to = queueKeys(ns, dlq);
  return {
    script: "deadLetterCopy",
    keys: [to.messages, to.hash, to.registry],
    args: [id, dlq, body, JSON.stringify(why), integerArg(settings.vt), integerArg(settings.delay), integerArg(settings.maxsize)],
    parse: () => 1,
  };
}

function parseWhy(text: unknown): DeadLetterInfo | undefined {
  if (typeof text !== "string") return undefined;
  try {
    return JSON.parse(text) as DeadLetterInfo;
  } catch {
    return undefined;
  }
}

export function peekDeadLetters(ns: string, options: { qname?: unknown; count?: unknown }, offset = 0): Command<PeekedMessage[]> {
  const keys = queueKeys(ns, validateQname(options.qname));
  const count = validateBatchSize("count", options.count ?? 10);
  return {
    script: "peekDeadLetters",
    keys: [keys.messages, keys.hash],
    args: [integerArg(count), integerArg(offset)],
    parse(reply) {
      failIfCode(reply);
      const fields = reply as unknown[];
      const peeked: PeekedMessage[] = [];
      for (let i = 0; i < fields.length; i += 3) {
        const id = String(fields[i]);
        const deadLetter = parseWhy(fields[i + 2]);
        peeked.push({
          id,
          message: fields[i + 1] === null ? "" : String(fields[i + 1]),
          sent: parseInt(id.slice(0, 10), 36) / 1000,
          ...(deadLetter ? { deadLetter } : {}),
        });
      }
      return peeked;
    },
  };
}

export function redrive(ns: string, dlq: string, target: string, ids: string[]): Command<number> {
  const from = queueKeys(ns, dlq);
  const to = queueKeys(ns, target);
  return {
    script: "redrive",
    keys: [from.messages, from.hash, to.messages, to.hash],
    args: ids,
    parse(reply) {
      failIfCode(reply);
      return Number(reply);
    },
  };
}
