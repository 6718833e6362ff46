/**
 * The Worker's options as its users see them: what each does and its default. Their defaults and
 * checks are declared in worker-option-table.ts, and resolved there before the worker touches Redis.
 */
import type { QueueMessage } from "../types";
import type { RetryPolicy, RetryPolicyOptions } from "../retry/retry-policy";

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
   * Longest idle sleep, in ms: the worst-case lateness for a message from a process that publishes
   * nothing (an rsmq 0.12.4 producer without `realtime`, an instance with `wakeConsumers: false`),
   * and about one poll per this interval when idle, which the health check of the
   * instance's wake subscription rides (see `subscriberPingMs`). 0 means the default.
   * @default 30000
   */
  maxIdleSleepMs?: number;
  /** Shortest idle sleep, in ms, when the next message is due very soon. @default 0 */
  minIdleSleepMs?: number;
  /** How long `stop()` waits for running handlers, in ms. @default 30000 */
  stopTimeoutMs?: number;
  /**
   * Listen on the queue's wake channel `<ns>:wake:<qname>` (sends of rsmq-next instances at their
   * default `wakeConsumers`) and realtime channel `<ns>:rt:<qname>` (senders with `realtime`, rsmq
   * 0.12.4's included), so a send from another process wakes a sleeping Worker at once.
   * @default true
   */
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
  /**
   * Fire the queue's schedules (upsertScheduleAsync): every Worker of a queue takes part, and the
   * fire script lets each slot send one message whichever fires it. Idle, it costs nothing more:
   * the earliest next slot comes with the look the Worker makes anyway. `false`: this Worker fires
   * none (a Scheduler, or other Workers of the queue, do).
   * @default true
   */
  schedules?: boolean;
}
