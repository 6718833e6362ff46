/**
 * A process that fires schedules without consuming: `new RedisSMQ.Scheduler(rsmq, { qnames })`
 * for a producer-only service, or for queues whose consumers are not Workers (rsmq 0.12.4, a
 * Worker with `schedules: false`). Any number of Schedulers and Workers may fire the same queue:
 * each slot sends one message, whichever fires it (schedule-firer.ts).
 *
 * Per queue it runs one firer, which reads the queue's schedules once per `capMs` when idle (a
 * change whose wake went unheard is seen within a cap) and at each next slot, and hears the
 * `~sched:` wake that an upsert, remove, pause or resume publishes, in any process.
 */
import type { RedisSMQ } from "../redis-smq";
import { internalsOf } from "../internals";
import type { RedisSMQInternals } from "../internals";
import { TypedEventEmitter } from "../typed-emitter";
import { integerOption, optionError, queueNameOption, describeValue } from "../options/checks";
import { rejectUnknownOptions } from "../options/unknown-options";
import { onQueueActivity } from "../wakes/wake-hub";
import { FreshWakes } from "../wakes/fresh-wakes";
import { systemClock } from "../worker/clock";
import { ScheduleFirer } from "./schedule-firer";
import type { ScheduleStore } from "./schedule-firer";
import { redisScheduleStore } from "./schedule-store";
import { isScheduleWake } from "./schedule-wake";

/** The options of a {@link Scheduler}. */
export interface SchedulerOptions {
  /** The queues whose schedules it fires (each must exist when a slot falls due). */
  qnames: string[];
  /**
   * The longest it goes without reading a queue's schedules, in ms: one read per queue per cap
   * when nothing is due, and the longest a change whose wake went unheard waits.
   * @default 30000
   */
  capMs?: number;
}

/** A message a {@link Scheduler} sent for a slot. */
export interface ScheduleFired {
  /** The queue. */
  qname: string;
  /** The schedule's name. */
  name: string;
  /** The slot the message was sent for, epoch ms. */
  slot: number;
  /** The message's id. */
  id: string;
}

/** Slots a {@link Scheduler} did not send. */
export interface ScheduleSkipped {
  /** The queue. */
  qname: string;
  /** The schedule's name. */
  name: string;
  /** How many slots. */
  count: number;
  /** `missed`: the schedule's catch-up policy left them out; `overlap`: `overlap: "skip"` held them back. */
  reason: "missed" | "overlap";
}

/** What a {@link Scheduler} emits. */
export interface SchedulerEvents {
  /** A message sent for a slot of schedule `name` of queue `qname`. */
  fired: [fired: ScheduleFired];
  /** Slots not sent: `missed` (the schedule's catch-up policy) or `overlap` (`overlap: "skip"` held them back). */
  skipped: [skipped: ScheduleSkipped];
  /** A failed read or fire (tried again after a back-off) or a wake subscription that failed. */
  error: [error: Error];
}

export const DEFAULT_SCHEDULER_CAP_MS = 30_000;

const OPTION_NAMES = ["qnames", "capMs"] as const;

/** One queue the scheduler fires: its firer and what it listens on. */
interface FiredQueue {
  readonly qname: string;
  readonly firer: ScheduleFirer;
  readonly wakes: FreshWakes;
}

/**
 * Fires the schedules of its queues (see upsertScheduleAsync) from a process that need not
 * consume them. Emits `fired`, `skipped` and `error`; errors are emitted, never thrown (with no
 * `error` listener, each kind is told once, as the instance tells its lasting problems); a failed
 * pass is tried again after a back-off.
 *
 * `require("rsmq-next").Scheduler`, or `import { Scheduler } from "rsmq-next"`.
 *
 * @example
 * const scheduler = new RedisSMQ.Scheduler(rsmq, { qnames: ["reports"] }).start();
 * process.on("SIGTERM", () => scheduler.stop());
 */
export class Scheduler extends TypedEventEmitter<SchedulerEvents> {
  private readonly internals: RedisSMQInternals;
  private readonly queues: FiredQueue[];
  private readonly unsubscribers: Array<() => unknown> = [];
  private started = false;
  private stopping: Promise<void> | undefined;

  /** Checks the options; a wrong one throws a TypeError or RangeError naming it, before anything is sent to Redis. */
  constructor(rsmq: RedisSMQ, options: SchedulerOptions) {
    super();
    this.internals = internalsOf(rsmq);
    const { qnames, capMs } = resolveSchedulerOptions(options);
    this.queues = qnames.map((qname) => {
      const redis = redisScheduleStore(this.internals, qname);
      const store: ScheduleStore = {
        // The wake subscription's health check rides each read, as it rides a Worker's poll.
        read: () => {
          this.internals.realtimeWakes().tick(capMs);
          return redis.read();
        },
        fire: (stored, plan) => redis.fire(stored, plan),
      };
      const firer = new ScheduleFirer(
        store,
        systemClock,
        {
          fired: (fired) => this.tell("fired", { qname, ...fired }),
          skipped: (skipped) => this.tell("skipped", { qname, ...skipped }),
          error: (error) => this.report(error),
        },
        { capMs },
      );
      return { qname, firer, wakes: new FreshWakes() };
    });
  }

  /** Starts firing: a first read of each queue now. Again, or after stop(), does nothing. */
  start(): this {
    if (this.started || this.stopping) return this;
    this.started = true;
    this.internals.workers.add(this);
    for (const queue of this.queues) {
      const heard = (text?: string): void => {
        if (isScheduleWake(text) && queue.wakes.fresh(text)) queue.firer.refresh();
      };
      this.unsubscribers.push(onQueueActivity(this.internals.ns, queue.qname, heard));
      void this.subscribe(queue, heard);
      void queue.firer.start();
    }
    return this;
  }

  /** Stops its timers and subscriptions; resolves once a fire in flight has ended. The same promise every time. */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  private async shutDown(): Promise<void> {
    await Promise.all(this.queues.map((queue) => queue.firer.stop()));
    await Promise.allSettled(this.unsubscribers.splice(0).map((unsubscribe) => Promise.resolve().then(unsubscribe)));
    this.internals.workers.delete(this);
  }

  /** The queue's wake channel, where every process's schedule changes are published; the cap covers a failure. */
  private async subscribe(queue: FiredQueue, heard: (text?: string) => void): Promise<void> {
    const channel = this.internals.layout.queue(queue.qname).wakeChannel;
    try {
      const unsubscribe = await this.internals.realtimeWakes().subscribe(channel, heard);
      if (this.stopping) return void unsubscribe();
      this.unsubscribers.push(unsubscribe);
      // A change published before the subscription was confirmed went unheard.
      queue.firer.refresh();
    } catch (error) {
      if (!this.stopping) this.report(error);
    }
  }

  private tell<E extends "fired" | "skipped">(event: E, ...args: SchedulerEvents[E]): void {
    try {
      this.emit(event, ...args);
    } catch (error) {
      this.report(error);
    }
  }

  private report(error: unknown): void {
    const reported = error instanceof Error ? error : new Error(String(error));
    // Unheard, it is told once per kind, as the instance tells its own lasting problems.
    if (this.listenerCount("error") === 0) return this.internals.reportProblem(`scheduler:${reported.name}`, reported);
    this.emit("error", reported);
  }
}

/** The options checked, defaults applied. */
function resolveSchedulerOptions(options: SchedulerOptions): Required<SchedulerOptions> {
  if (!options || typeof options !== "object")
    throw new TypeError(`Expected scheduler options to be an object, got ${describeValue(options)}`);
  rejectUnknownOptions(options, { what: "scheduler", names: OPTION_NAMES });
  const { qnames } = options as Partial<SchedulerOptions>;
  if (!Array.isArray(qnames) || qnames.length === 0) throw optionError("qnames", "a non-empty array of queue names", qnames);
  const checked = qnames.map((qname, index) => queueNameOption(`qnames[${index}]`, qname));
  const capMs = options.capMs === undefined ? DEFAULT_SCHEDULER_CAP_MS : integerOption("capMs", options.capMs, 1000);
  return { qnames: [...new Set(checked)], capMs };
}
