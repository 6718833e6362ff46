/**
 * A consumer that sleeps until the next message is due instead of polling, wakes as soon as a
 * message is sent, and drains a backlog in batches with bounded concurrency.
 *
 * This is the public face: options, events, counters, start and stop. The loop itself is
 * worker-loop.ts, driven by the queue's I/O (redis-queue-port.ts) and the clock.
 */
import { EventEmitter } from "events";
import type { RedisSMQ } from "../redis-smq";
import { systemClock } from "./clock";
import { redisQueuePort } from "./redis-queue-port";
import type { WorkerEvents } from "./worker-events";
import { WorkerLoop } from "./worker-loop";
import { resolveWorkerOptions, type WorkerOptions } from "./worker-options";
import type { WorkerStats } from "./worker-stats";

export type { WorkerEvents } from "./worker-events";

type Listener<E extends keyof WorkerEvents> = (...args: WorkerEvents[E]) => void;

export interface Worker {
  on<E extends keyof WorkerEvents>(event: E, listener: Listener<E>): this;
  once<E extends keyof WorkerEvents>(event: E, listener: Listener<E>): this;
  off<E extends keyof WorkerEvents>(event: E, listener: Listener<E>): this;
  emit<E extends keyof WorkerEvents>(event: E, ...args: WorkerEvents[E]): boolean;
}

export class Worker extends EventEmitter {
  private readonly loop: WorkerLoop;

  /**
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
   * running handlers. Messages whose handlers did not finish reappear after their vt. Calling it
   * again returns the same promise.
   */
  stop(): Promise<void> {
    return this.loop.stop();
  }
}
