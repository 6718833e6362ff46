/**
 * A consumer that sleeps until the next message is due instead of polling, wakes as soon as a
 * message is sent, and drains a backlog in batches with bounded concurrency.
 *
 * This is the public face: options, events, counters, start and stop. The loop itself is
 * worker-loop.ts, driven by the queue's I/O (redis-queue-port.ts) and the clock.
 */
import type { RedisSMQ } from "../redis-smq";
import { systemClock } from "./clock";
import { redisQueuePort } from "./redis-queue-port";
import { TypedEventEmitter } from "../typed-emitter";
import type { WorkerEvents } from "./worker-events";
import { WorkerLoop } from "./worker-loop";
import { resolveWorkerOptions } from "./worker-option-table";
import type { WorkerOptions } from "./worker-options";
import type { WorkerStats } from "./worker-stats";
import type { MessageCancelledError } from "./message-cancelled-error";

export type { WorkerEvents } from "./worker-events";

/**
 * A consumer of one queue that sleeps until the next message is due instead of polling. Idle, it
 * sends at most 2 commands per `maxIdleSleepMs` (30 s by default): its look and, on a single
 * server, the health check of the instance's wake subscription; it wakes at once for a send from
 * the same process, for a `realtime` send from another process (rsmq 0.12.4 producers included)
 * and for its own retries; with a backlog it receives in batches up to its free handler slots
 * without sleeping. A handler that resolves has its message deleted; one that throws has it
 * retried by the {@link RetryPolicy}, or moved to a dead-letter queue once it stops (a
 * {@link PoisonError}, or no deliveries left); one that throws a {@link RateLimitError} has it put
 * back until the block ends, its delivery not spent. A paused or rate-limited queue holds it back
 * (`heldBack`): it takes nothing more, sleeps until the pause or the limit lets it (at most
 * `maxIdleSleepMs`) and wakes at once for a resume; at the queue's concurrency limit it sleeps until a
 * slot frees (a `~free:` wake from any process, or one of its own handlers ending). Every delete and
 * hide carries the delivery's receipt (`rc`): a message deleted elsewhere, or received again by
 * another consumer, is `cancelled` (its handler's signal aborts with a {@link MessageCancelledError}),
 * never an error. Its looks carry its heartbeat (`listConsumersAsync`); `stop()` removes it. Redis
 * outages are ridden out with a back-off of 100 ms to 15 s; Redis errors are emitted as `error`,
 * never thrown.
 *
 * `require("rsmq-next").Worker`, or `import { Worker } from "rsmq-next"`.
 */
export class Worker extends TypedEventEmitter<WorkerEvents> {
  private readonly loop: WorkerLoop;

  /**
   * Checks the options (see {@link WorkerOptions}); a wrong one throws here, before anything is
   * sent to Redis. The worker does nothing until {@link start} is called.
   *
   * @example
   * const worker = new Worker(rsmq, {
   *   qname: "emails",
   *   concurrency: 4,
   *   handler: async (message, { signal }) => sendEmail(JSON.parse(message.message), { signal }),
   * });
   * worker.start();
   * process.on("SIGTERM", () => worker.stop());
   */
  constructor(rsmq: RedisSMQ, options: WorkerOptions) {
    super();
    const resolved = resolveWorkerOptions(options);
    // Also fails early for anything that is not a RedisSMQ.
    const queue = redisQueuePort(rsmq, resolved);
    this.loop = new WorkerLoop(resolved, { queue, clock: systemClock }, this);
  }

  /** Counters since the worker was created (a copy). */
  get counters(): Readonly<WorkerStats> {
    return this.loop.counters;
  }

  /** Starts consuming. Calling it again, or after stop(), does nothing. */
  start(): this {
    this.loop.start();
    return this;
  }

  /**
   * Stops receiving at once, aborts the handlers' signal, and waits up to stopTimeoutMs for
   * running handlers. Messages whose handlers did not finish reappear after their vt: a stopped
   * worker sends nothing more, and a handler that ends later is only reported, as `abandoned`.
   * Calling it again returns the same promise.
   */
  stop(): Promise<void> {
    return this.loop.stop();
  }
}
