import { failIfCode, integerArg } from "./operation";
import type { Operation } from "./operation";
import { toQueueMessage, withStoredAttributes } from "./message-reply";
import { visibleSince } from "./visible-since";
import type { KeyLayout } from "../keys";
import { isGiven, validateBatchSize, validateQname, validateSeconds } from "./rsmq-input-rules";
import type { QueueMessage, ReceiveMessageOptions } from "../types";
import { splitExpired } from "../retention/expired-report";
import type { ExpiredReport } from "../retention/expired-report";
import { defineOperation } from "./descriptor";
import { MAX_BATCH_BYTES } from "./batch-bytes";
import type { Observation, ScriptDescriptor } from "./descriptor";
import type { OptionKeys } from "../options/option-keys";
import { delivered, oneMessage } from "../telemetry/delivery";
import type { ReceivedDetail } from "../telemetry/delivery";
import type { CallSpan } from "../telemetry/tracing";
import type { Recorder } from "../telemetry/recorder";
import type { ReceivedMessages, ReceiveMessagesOptions, ReceiveOrNextDue } from "../types";
import { parseReceiveBlock } from "./receive-block";
import type { ReceiveBlock } from "./receive-block";

/** What the receive script found: the messages, and when fewer than asked, when the next is due. */
export interface ReceivedBatch {
  messages: QueueMessage[];
  /** Milliseconds until the earliest message is visible; null for an empty queue; undefined when not looked up. */
  nextDueMs: number | null | undefined;
  /** The visibility timeout applied, in seconds (the queue's when none was given). */
  vt: number;
  /** With `details`: what telemetry needs of each message, parallel to `messages`. */
  details?: ReceivedDetail[];
  /** With `details`: the server's time of the receive, epoch ms. */
  now?: number;
  /** The expired messages the script met on the way (a queue with a retention); undefined when none. */
  expired?: ExpiredReport;
  /**
   * Why it took nothing, or fewer than asked, although messages were due: a pause, a rate limit or
   * a block (lua/shared/queue-gate.lua), or the concurrency limit (lua/shared/leases.lua).
   * `nextDueMs` is then `blocked.retryMs`.
   */
  blocked?: ReceiveBlock;
}

const EMPTY_QUEUE = -1;
const NOT_LOOKED_UP = -2;

/**
 * Receives up to `count` messages, each with its `attributes` when it was sent with some (the
 * script reads `<id>:at` in the HMGET that reads the body); with `details` the reply also carries
 * each message's visible-at score and trace context, and the server's time (see
 * lua/receiveMessage-3.lua): only telemetry asks for them, so a receive without it costs what it
 * did. With `schedule` it also sets `schedule` on the messages a schedule sent (the Worker's
 * receives; the public ones leave it out, so a scheduled message keeps rsmq's shape there).
 */
export function receiveMessages(
  layout: KeyLayout,
  options: { qname?: unknown; vt?: unknown },
  count: unknown,
  details = false,
  schedule = false,
): Operation<ReceivedBatch> {
  const qname = validateQname(options.qname);
  const vt = isGiven(options.vt) ? integerArg(validateSeconds("vt", options.vt)) : "";
  const batchSize = validateBatchSize("count", count);
  const keys = layout.queue(qname);
  return {
    script: "receiveMessage",
    commandKind: "receive",
    keys: [keys.messages, keys.hash, keys.leases],
    args: receiveArgs(vt, batchSize, details ? "d" : ""),
    parse(reply) {
      failIfCode(reply);
      const { rest: fields, expired } = splitExpired(reply as unknown[]);
      const [nextDue, appliedVt, ...rest] = fields;
      const blocked = parseReceiveBlock(nextDue);
      const code = Number(nextDue);
      const nextDueMs = blocked ? blocked.retryMs : code === EMPTY_QUEUE ? null : code === NOT_LOOKED_UP ? undefined : code;
      const batch = details
        ? withDetails(rest, nextDueMs, Number(appliedVt), schedule)
        : plainBatch(rest, nextDueMs, Number(appliedVt), schedule);
      if (blocked) batch.blocked = blocked;
      return expired === undefined ? batch : { ...batch, expired };
    },
  };
}

/** The reply's `id, body, rc, fr, at, id, ...` (see lua/receiveMessage-3.lua). */
function plainBatch(rest: unknown[], nextDueMs: number | null | undefined, vt: number, schedule: boolean): ReceivedBatch {
  const messages: QueueMessage[] = [];
  for (let i = 0; i < rest.length; i += 5) {
    messages.push(withStoredAttributes(toQueueMessage(rest[i], rest[i + 1], rest[i + 2], rest[i + 3]), rest[i + 4], schedule));
  }
  return { messages, nextDueMs, vt };
}

/** The reply's `now, id, body, rc, fr, at, score, tp, id, ...` (see lua/receiveMessage-3.lua). */
function withDetails(rest: unknown[], nextDueMs: number | null | undefined, vt: number, schedule: boolean): ReceivedBatch {
  const [now, ...fields] = rest;
  const messages: QueueMessage[] = [];
  const details: ReceivedDetail[] = [];
  for (let i = 0; i < fields.length; i += 7) {
    const message = withStoredAttributes(toQueueMessage(fields[i], fields[i + 1], fields[i + 2], fields[i + 3]), fields[i + 4], schedule);
    messages.push(message);
    const carried = fields[i + 6];
    details.push({
      visibleAt: visibleSince(message.id, Number(fields[i + 5])),
      carrier: typeof carried === "string" ? carried : undefined,
    });
  }
  return { messages, nextDueMs, vt, details, now: Number(now) };
}

/**
 * The script's ARGV (see lua/receiveMessage-3.lua) without the trailing ones it does not need:
 * each argument costs the server a string to build, and receiveMessage (count 1, the queue's vt)
 * needs none. A batch carries the byte bound of its reply.
 */
function receiveArgs(vt: string, batchSize: number, flags: string): string[] {
  if (batchSize !== 1) return [vt, integerArg(batchSize), flags, integerArg(MAX_BATCH_BYTES)];
  if (flags !== "") return [vt, "1", flags];
  return vt === "" ? [] : [vt];
}

/** How a receive is observed; `single`: one message's attributes on the span, else the batch's count. */
function observeReceive(single: boolean): Observation<ReceiveMessageOptions, ReceivedBatch> {
  return { operation: "receive", done: (batch, span, recording, queue) => receiveDone(batch, single, span, recording, queue) };
}

/** A receive's span attributes and figures (deleteAndReceive's receive part records the same). */
export function receiveDone(
  batch: ReceivedBatch,
  single: boolean,
  span: CallSpan | undefined,
  recording: Recorder | undefined,
  queue: string,
): void {
  span?.set({ "messaging.rsmq.visibility_timeout": batch.vt });
  if (!single) span?.set({ "messaging.batch.message_count": batch.messages.length });
  else if (batch.messages.length === 1) span?.set(oneMessage(batch.messages[0]));
  delivered(queue, "receive", batch, span, recording);
}

/** The options of a receive of one message. */
const RECEIVE_KEYS: OptionKeys<ReceiveMessageOptions> = { qname: true, vt: true, waitMs: true, signal: true };

/** One message's receive, with each message's details when telemetry observes it. */
const receiveOne: ScriptDescriptor<ReceiveMessageOptions, ReceivedBatch, unknown>["build"] = ({ layout, observed }, options) =>
  receiveMessages(layout, options, 1, observed);

/** receiveMessageAsync: the next due message, hidden for vt seconds; `{}` when none is due (after `waitMs`). */
export const receiveMessageOperation = defineOperation<ReceiveMessageOptions, ReceivedBatch, QueueMessage | {}>({
  optionKeys: RECEIVE_KEYS,
  build: receiveOne,
  waits: true,
  observe: observeReceive(true),
  result: ({ messages }) => messages[0] ?? {},
});

/** receiveMessageOrNextDueAsync: receiveMessage's call, or when the next message will be due. */
export const receiveMessageOrNextDueOperation = defineOperation<ReceiveMessageOptions, ReceivedBatch, ReceiveOrNextDue>({
  optionKeys: RECEIVE_KEYS,
  build: receiveOne,
  waits: true,
  observe: observeReceive(true),
  result: ({ messages, nextDueMs, blocked }) => {
    if (messages.length > 0) return { status: "received", message: messages[0] };
    if (blocked?.reason === "paused")
      return blocked.retryMs === null ? { status: "paused" } : { status: "paused", retryMs: blocked.retryMs };
    if (blocked?.reason === "maxed") return { status: "maxed", retryMs: blocked.retryMs };
    if (blocked) return { status: "limited", retryMs: blocked.retryMs };
    if (nextDueMs === null || nextDueMs === undefined) return { status: "empty" };
    return { status: "waiting", nextDueMs };
  },
});

/** receiveMessagesAsync: up to `count` due messages; `nextDueMs` when fewer were due. */
export const receiveMessagesOperation = defineOperation<ReceiveMessagesOptions, ReceivedBatch, ReceivedMessages>({
  optionKeys: { ...RECEIVE_KEYS, count: true },
  build: ({ layout, observed }, options) => receiveMessages(layout, options, options.count, observed),
  waits: true,
  observe: observeReceive(false),
  result: ({ messages, nextDueMs, blocked }) => receivedMessages(messages, nextDueMs, blocked),
});

/** receiveMessages' public answer: `nextDueMs` when it was looked up, `blocked` when held back. */
export function receivedMessages(
  messages: QueueMessage[],
  nextDueMs: number | null | undefined,
  blocked: ReceiveBlock | undefined,
): ReceivedMessages {
  const answer: ReceivedMessages = nextDueMs === undefined ? { messages } : { messages, nextDueMs };
  if (blocked) answer.blocked = blocked;
  return answer;
}
