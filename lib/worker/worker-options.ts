/**
 * The Worker's options: declared, documented, defaulted and validated in one place, before the
 * worker touches Redis. Messages name the option, what was expected and what was given.
 */
import { MAX_BATCH, MAX_SECONDS } from "../operations/rsmq-input-rules";
import type { QueueMessage } from "../types";
import { RETRY_OPTION_NAMES, RetryPolicy } from "../retry/retry-policy";
import type { RetryPolicyOptions } from "../retry/retry-policy";
import { rejectUnknownOptions } from "../options/unknown-options";
import { describeValue, integerOption, optionError, queueNameOption } from "../options/checks";

/** What a handler gets besides the message. */
export interface HandlerContext {
  /** Fires when the worker stops: finish or give up soon; an unfinished message reappears after vt. */
  signal: AbortSignal;
}

/**
 * Handles one message. Resolving deletes the message. Throwing retries it after a backoff, or stops
 * it (dead-letters it) when it was a {@link PoisonError} or the deliveries ran out.
 */
// eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- says in the signature that a handler may be async
export type MessageHandler = (message: QueueMessage, context: HandlerContext) => unknown | Promise<unknown>;

/**
 * The options of a {@link Worker}. Checked when the worker is constructed: a wrong name or value
 * throws a TypeError or RangeError naming the option, before anything is sent to Redis.
 *
 * @example
 * new Worker(rsmq, {
 *   qname: "emails",
 *   handler: async (message) => send(JSON.parse(message.message)),
 *   concurrency: 8,
 *   retry: { maxDeliveries: 5, initialDelayMs: 1000 },
 *   deadLetterQueue: "emails-failed",
 * });
 */
export interface WorkerOptions {
  /** The queue to consume. */
  qname: string;
  /** Called once per received message. */
  handler: MessageHandler;
  /** Most handlers running at once. @default 1 */
  concurrency?: number;
  /** Most messages taken per receive (never more than the free handler slots), 1 to 1000. @default concurrency */
  batchSize?: number;
  /** Seconds a received message stays hidden (and is extended by while its handler runs). @default the queue's vt */
  vt?: number;
  /**
   * Longest idle sleep, in ms: the worst-case lateness for a message from another process without
   * `realtime`, and about one poll per this interval when idle, which the health check of the
   * instance's wake subscription rides (see `subscriberPingMs`). 0 means the default.
   * @default 30000
   */
  maxIdleSleepMs?: number;
  /** Shortest idle sleep, in ms, when the next message is due very soon. @default 0 */
  minIdleSleepMs?: number;
  /** How long `stop()` waits for running handlers, in ms. @default 30000 */
  stopTimeoutMs?: number;
  /** Listen on `<ns>:rt:<qname>` for sends from other processes with `realtime: true`. @default true */
  realtimeWakes?: boolean;
  /** Aborting it stops the worker, as `stop()` does. */
  signal?: AbortSignal;
  /**
   * When a failed message is tried again and when it stops: a {@link RetryPolicy} or its options.
   * @default at most 10 deliveries; back off 5s doubling, capped at 2m0s, equal jitter
   */
  retry?: RetryPolicy | RetryPolicyOptions;
  /**
   * Where stopped messages go (created on demand with this queue's settings).
   * @default `<qname>-dlq`
   */
  deadLetterQueue?: string;
  /**
   * What happens to a message the retry policy stops retrying (a {@link PoisonError}, or no
   * deliveries left): `"deadLetter"` moves it to the dead-letter queue (event `deadLettered`),
   * `"delete"` deletes it (event `dropped`). Nothing to do with the worker's own `stop()` or its
   * `stopped` event.
   * @default "deadLetter"
   */
  onStop?: "deadLetter" | "delete";
}

/** The options with every default applied. */
export interface ResolvedWorkerOptions {
  qname: string;
  handler: MessageHandler;
  concurrency: number;
  batchSize: number;
  vt: number | undefined;
  maxIdleSleepMs: number;
  minIdleSleepMs: number;
  stopTimeoutMs: number;
  realtimeWakes: boolean;
  signal: AbortSignal | undefined;
  retry: RetryPolicy;
  /** Undefined with `onStop: "delete"`. */
  deadLetterQueue: string | undefined;
  onStop: "deadLetter" | "delete";
}

/** Every name WorkerOptions takes (checked against the interface above). */
export const WORKER_OPTION_NAMES = [
  "qname",
  "handler",
  "concurrency",
  "batchSize",
  "vt",
  "maxIdleSleepMs",
  "minIdleSleepMs",
  "stopTimeoutMs",
  "realtimeWakes",
  "signal",
  "retry",
  "deadLetterQueue",
  "onStop",
] as const;
const allWorkerNamesListed: Exclude<keyof WorkerOptions, (typeof WORKER_OPTION_NAMES)[number]> extends never ? true : never = true;
void allWorkerNamesListed;

/** The retry policy's options, where they belong when given to the worker itself. */
const NESTED_OPTION_NAMES = RETRY_OPTION_NAMES.map((name) => `retry.${name}`);

export const DEFAULT_MAX_IDLE_SLEEP_MS = 30_000;
export const DEFAULT_STOP_TIMEOUT_MS = 30_000;

function resolveDeadLetterQueue(qname: string, given: unknown): string {
  if (given === undefined && qname.length + "-dlq".length > 160) {
    throw new RangeError(`The default dead-letter queue name "${qname}-dlq" is longer than 160 characters: set \`deadLetterQueue\``);
  }
  const deadLetterQueue = queueNameOption("deadLetterQueue", given ?? `${qname}-dlq`);
  if (deadLetterQueue === qname) {
    throw new RangeError(`Expected \`deadLetterQueue\` to differ from \`qname\`, got "${qname}" for both`);
  }
  return deadLetterQueue;
}

export function resolveWorkerOptions(options: WorkerOptions): ResolvedWorkerOptions {
  if (!options || typeof options !== "object")
    throw new TypeError(`Expected worker options to be an object, got ${describeValue(options)}`);
  rejectUnknownOptions(options, { what: "worker", names: WORKER_OPTION_NAMES, nested: NESTED_OPTION_NAMES });
  const qname = queueNameOption("qname", options.qname);
  if (typeof options.handler !== "function") {
    throw optionError("handler", "a function", options.handler);
  }
  const concurrency = integerOption("concurrency", options.concurrency ?? 1, 1);
  const batchSize = integerOption("batchSize", options.batchSize ?? Math.min(concurrency, MAX_BATCH), 1, MAX_BATCH);
  const vt = options.vt === undefined ? undefined : integerOption("vt", options.vt, 0, MAX_SECONDS);
  const maxIdle = integerOption("maxIdleSleepMs", options.maxIdleSleepMs ?? 0, 0);
  const maxIdleSleepMs = maxIdle === 0 ? DEFAULT_MAX_IDLE_SLEEP_MS : maxIdle;
  const minIdleSleepMs = integerOption("minIdleSleepMs", options.minIdleSleepMs ?? 0, 0);
  if (minIdleSleepMs > maxIdleSleepMs) {
    throw new RangeError(`Expected \`minIdleSleepMs\` (${minIdleSleepMs}) to be at most \`maxIdleSleepMs\` (${maxIdleSleepMs})`);
  }
  const stopTimeoutMs = integerOption("stopTimeoutMs", options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS, 0);
  const realtimeWakes = options.realtimeWakes ?? true;
  if (typeof realtimeWakes !== "boolean") {
    throw optionError("realtimeWakes", "a boolean", realtimeWakes);
  }
  const signal = options.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw optionError("signal", "an AbortSignal", signal);
  }
  const retry = options.retry instanceof RetryPolicy ? options.retry : new RetryPolicy(options.retry ?? {});
  const onStop = options.onStop ?? "deadLetter";
  if (onStop !== "deadLetter" && onStop !== "delete") {
    throw optionError("onStop", '"deadLetter" or "delete"', onStop);
  }
  const deadLetterQueue = onStop === "deadLetter" ? resolveDeadLetterQueue(qname, options.deadLetterQueue) : undefined;
  return {
    qname,
    handler: options.handler,
    concurrency,
    batchSize,
    vt,
    maxIdleSleepMs,
    minIdleSleepMs,
    stopTimeoutMs,
    realtimeWakes,
    signal,
    retry,
    deadLetterQueue,
    onStop,
  };
}
