/**
 * `peek`: one read-only script call (lua/peekMessages-2.lua) that lists a queue's first messages
 * in receive order, each with its state (visible, in flight, delayed) and due time by the
 * server's clock.
 */
import { internalsOf } from "../internals";
import type { RedisSMQ } from "../redis-smq";
import { failIfCode, integerArg, type Command } from "../commands/command";
import { parseWhy } from "../commands/dead-letters";
import type { KeyLayout } from "../keys";
import type { PeekedMessage } from "../types";
import { validateBatchSize, validateQname } from "../validation";

/**
 * Where a message is: `visible` (due: the next receive may get it), `inFlight` (received and
 * hidden for its vt: being handled, or waiting for a retry), `delayed` (sent with a delay, or
 * hidden without ever being received, and not due yet). The same split as `stats`.
 */
export type MessageState = "visible" | "inFlight" | "delayed";

export interface MessageWithState extends PeekedMessage {
  state: MessageState;
  /** When it becomes visible (or became, for a visible one), epoch ms, server clock. */
  dueAt: number;
  /** How often it was received (rsmq's `rc`); 0 for never. */
  receiveCount: number;
}

export interface PeekResult {
  qname: string;
  /** The server's time when it looked, epoch ms. */
  now: number;
  /** Messages in the queue. */
  total: number;
  messages: MessageWithState[];
}

/** A message's state from its score (`dueAt`) and receive count, at the server's time `now`. */
export function stateOf(dueAt: number, receiveCount: number, now: number): MessageState {
  if (dueAt <= now) return "visible";
  return receiveCount > 0 ? "inFlight" : "delayed";
}

/** The first `count` messages of `qname` with their states, as a command for the script runner. */
export function peekMessages(layout: KeyLayout, qname: string, count: number): Command<PeekResult> {
  const keys = layout.queue(validateQname(qname));
  return {
    script: "peekMessages",
    keys: [keys.messages, keys.hash],
    args: [integerArg(validateBatchSize("count", count))],
    parse(reply) {
      failIfCode(reply);
      const [nowText, total, ...fields] = reply as unknown[];
      const now = Number(nowText);
      const messages: MessageWithState[] = [];
      for (let i = 0; i < fields.length; i += 5) {
        const id = String(fields[i]);
        const dueAt = Number(fields[i + 2]);
        const receiveCount = parseInt(String(fields[i + 3]), 10) || 0;
        const deadLetter = parseWhy(fields[i + 4]);
        messages.push({
          id,
          message: fields[i + 1] === null ? "" : String(fields[i + 1]),
          sent: parseInt(id.slice(0, 10), 36) / 1000,
          ...(deadLetter ? { deadLetter } : {}),
          state: stateOf(dueAt, receiveCount, now),
          dueAt,
          receiveCount,
        });
      }
      return { qname, now, total: Number(total), messages };
    },
  };
}

/** Runs the peek script on the instance's connection (EVALSHA, EVAL on NOSCRIPT). */
export async function readPeek(rsmq: RedisSMQ, qname: string, count: number): Promise<PeekResult> {
  const queue = internalsOf(rsmq);
  return queue.run(() => peekMessages(queue.layout, qname, count));
}
