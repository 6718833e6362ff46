/**
 * The dead-letter commands: the atomic move, the first half of the two-step move (for queues that
 * cannot share a script), peeking, and redrive. Why a message stopped travels as a JSON object in
 * the dead-letter queue's hash, field `<id>:dl`, which rsmq clients never read.
 */
import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import { QUEUE_DEFAULTS } from "./create-queue";
import type { KeyLayout } from "../keys";
import { validateBatchSize, validateQname } from "./validation";
import type { DeadLetterInfo, PeekedMessage } from "../types";

/** What the worker records when a message stops; the script adds `at`. */
export type StopRecord = Omit<DeadLetterInfo, "at">;

export function deadLetter(layout: KeyLayout, source: string, dlq: string, id: string, why: StopRecord): Operation<0 | 1> {
  const from = layout.queue(source);
  const to = layout.queue(dlq);
  return {
    script: "deadLetter",
    keys: [from.messages, from.hash, to.messages, to.hash, to.registry],
    // The defaults stand in for a setting the source queue's hash lacks, as createQueue's would.
    args: [id, dlq, JSON.stringify(why), ...[QUEUE_DEFAULTS.vt, QUEUE_DEFAULTS.delay, QUEUE_DEFAULTS.maxsize].map(integerArg)],
    parse: (reply) => (reply === 1 ? 1 : 0),
  };
}

/** Settings for a dead-letter queue created on demand. */
export interface QueueSettings {
  vt: number;
  delay: number;
  maxsize: number;
}

export function deadLetterCopy(
  layout: KeyLayout,
  dlq: string,
  id: string,
  body: string,
  why: StopRecord,
  settings: QueueSettings,
): Operation<1> {
  const to = layout.queue(dlq);
  return {
    // Listed first: a crash before the copy leaves a listed name with no queue, never the reverse.
    before: { args: ["SADD", to.registry, dlq], key: to.registry },
    script: "deadLetterCopy",
    keys: [to.messages, to.hash],
    args: [id, body, JSON.stringify(why), integerArg(settings.vt), integerArg(settings.delay), integerArg(settings.maxsize)],
    parse: () => 1,
  };
}

/** The `<id>:dl` JSON of a dead letter; undefined when absent or unreadable. */
export function parseWhy(text: unknown): DeadLetterInfo | undefined {
  if (typeof text !== "string") return undefined;
  try {
    return JSON.parse(text) as DeadLetterInfo;
  } catch {
    return undefined;
  }
}

export function peekDeadLetters(layout: KeyLayout, options: { qname?: unknown; count?: unknown }, offset = 0): Operation<PeekedMessage[]> {
  const keys = layout.queue(validateQname(options.qname));
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

export function redrive(layout: KeyLayout, dlq: string, target: string, ids: string[]): Operation<number> {
  const from = layout.queue(dlq);
  const to = layout.queue(target);
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

/**
 * The first step of the cross-slot redrive: claims (hides for `holdMs`) the messages that are still
 * in the dead-letter queue, with a body, and visible; resolves them with their bodies.
 */
export function redriveClaim(
  layout: KeyLayout,
  dlq: string,
  ids: string[],
  holdMs: number,
): Operation<Array<{ id: string; message: string }>> {
  const from = layout.queue(dlq);
  return {
    script: "redriveClaim",
    keys: [from.messages, from.hash],
    args: [integerArg(holdMs), ...ids],
    parse(reply) {
      const fields = reply as string[];
      const claimed: Array<{ id: string; message: string }> = [];
      for (let i = 0; i < fields.length; i += 2) claimed.push({ id: String(fields[i]), message: String(fields[i + 1]) });
      return claimed;
    },
  };
}

/** The copy step of the cross-slot redrive (Redis Cluster, queues in different slots). */
export function redriveCopy(
  layout: KeyLayout,
  target: string,
  messages: ReadonlyArray<{ id: string; message: string }>,
): Operation<number> {
  const to = layout.queue(target);
  return {
    script: "redriveCopy",
    keys: [to.messages, to.hash],
    args: messages.flatMap(({ id, message }) => [id, message]),
    parse(reply) {
      failIfCode(reply);
      return Number(reply);
    },
  };
}
