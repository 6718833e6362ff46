/**
 * A consumer that sleeps until the next message is due instead of polling, wakes as soon as a
 * message is sent, and drains a backlog in batches with bounded concurrency.
 *
 * The loop: receive up to the free handler slots; while a full batch comes back, receive again at
 * once; when fewer came back, nothing else is due, so sleep until the next due time the same reply
 * carried, held between minIdleSleepMs and maxIdleSleepMs. A send in this process, a realtime
 * publish from another, a retry this worker scheduled, or stop() cuts the sleep short.
 */
import { EventEmitter } from "events";
import type { RedisSMQ } from "../redis-smq";
import { internalsOf, type RedisSMQInternals } from "../redis-smq";
import type { QueueMessage } from "../types";
import { idleSleep, looksFirst, receiveRetryDelay } from "./sleep-policy";
import { onQueueActivity } from "../wakes/wake-hub";
import { wakeableSleep, type WakeReason, type WakeableSleep } from "./wakeable-sleep";
import { resolveWorkerOptions, type ResolvedWorkerOptions, type WorkerOptions } from "./worker-options";
import { createWorkerStats, type WorkerStats } from "./worker-stats";
import { VisibilityExtender } from "./visibility-extender";
import { DeadLetterMover } from "../dead-letters/dead-letter-mover";
import { nextDue } from "../commands/next-due";
import type { StopReason } from "../retry/retry-policy";
import { ReportOnce } from "../report-once";
import { wakeRetryDelayMs, wakeSubscriptionError } from "./wake-retry";
import { workerWarning, UnheardErrors } from "../unheard-errors";

/** The events a Worker emits. */
export interface WorkerEvents {
  /** A receive returned: how many messages, and (when fewer than asked) ms until the next is due, null if empty. */
  receive: [received: number, nextDueMs: number | null | undefined];
  /**
   * A read-only look returned (made instead of a receive after an idle sleep that nothing cut
   * short): ms until the next message is due (0: one is due, a receive follows), null if empty.
   */
  look: [nextDueMs: number | null];
  /** A handler resolved and its message was deleted. */
  handled: [message: QueueMessage];
  /** A handler threw; `retry` or `stop` follows with what was decided (neither if the message is gone from the queue). */
  failed: [message: QueueMessage, error: unknown];
  /** A failed message will be delivered again in `delayMs`. */
  retry: [
    message: QueueMessage,
    info: {
      /** Milliseconds until the message is delivered again (the retry policy's backoff). */
      delayMs: number;
      /** What the handler threw. */
      error: unknown;
    },
  ];
  /**
   * A failed message stopped being retried: `poison` (the handler said so) or `exhausted` (no
   * deliveries left); it was moved to the dead-letter queue, or deleted.
   */
  stop: [
    message: QueueMessage,
    info: {
      /** `"poison"`: the handler threw a {@link PoisonError}; `"exhausted"`: no deliveries left. */
      reason: StopReason;
      /** What the handler threw the last time. */
      error: unknown;
      /** Where the message went: the dead-letter queue, or deleted (`onStop: "delete"`). */
      action: "deadLettered" | "deleted";
    },
  ];
  /** The worker goes to sleep for `ms`. */
  sleep: [ms: number];
  /** A sleep ended early. */
  wake: [reason: "woken" | "aborted"];
  /**
   * A Redis error (receive, delete, extend), or an exception thrown by a listener of another
   * event; the worker carries on. Emitted only when someone listens; otherwise each error name is
   * shown once as a process warning (code RSMQ_NEXT_WORKER_ERROR). A refused wake subscription
   * (`noPermission`: the user lacks the queue's channel) is reported once, not on every retry; the
   * worker keeps trying (1 s apart, doubling up to 30 s).
   */
  error: [error: Error];
  /** stop() finished. */
  stopped: [];
}

/**
 * A listener of one {@link WorkerEvents} event.
 * @inline
 */
type Listener<E extends keyof WorkerEvents> = (...args: WorkerEvents[E]) => void;

export interface Worker {
  /** Calls `listener` on every `event` (see {@link WorkerEvents}). */
  on<E extends keyof WorkerEvents>(event: E, listener: Listener<E>): this;
  /** Calls `listener` on the next `event` only. */
  once<E extends keyof WorkerEvents>(event: E, listener: Listener<E>): this;
  /** Removes a listener added with `on` or `once`. */
  off<E extends keyof WorkerEvents>(event: E, listener: Listener<E>): this;
  /** Emits `event` to its listeners; true if it had any. The worker emits its own events: rarely needed. */
  emit<E extends keyof WorkerEvents>(event: E, ...args: WorkerEvents[E]): boolean;
}

/** What a loop call that failed (and was reported and backed off) resolves to. */
const FAILED = Symbol("failed");

/**
 * A consumer of one queue that sleeps until the next message is due instead of polling. Idle, it
 * sends about one command per `maxIdleSleepMs` (30 s by default); it wakes at once for a send from
 * the same process, for a `realtime` send from another process (rsmq 0.12.4 producers included)
 * and for its own retries; with a backlog it receives in batches up to its free handler slots
 * without sleeping. A handler that resolves has its message deleted; one that throws has it
 * retried by the {@link RetryPolicy}, or moved to a dead-letter queue once it stops (a
 * {@link PoisonError}, or no deliveries left). Redis outages are ridden out with a back-off of
 * 100 ms to 15 s; Redis errors are emitted as `error`, never thrown.
 *
 * `require("rsmq-next").Worker`, or `import { Worker } from "rsmq-next"`.
 */
export class Worker extends EventEmitter {
  private readonly options: ResolvedWorkerOptions;
  private readonly stats: WorkerStats = createWorkerStats();
  private readonly stopController = new AbortController();
  private readonly running = new Set<Promise<void>>();
  /** The RedisSMQ instance's internals, looked up once. */
  private readonly queue: RedisSMQInternals;
  private readonly extender: VisibilityExtender;
  private readonly mover: DeadLetterMover;
  private started = false;
  /** Redis calls of the loop that failed in a row: they set the back-off. */
  private consecutiveFailures = 0;
  private stopping: Promise<void> | undefined;
  private loopDone: Promise<void> = Promise.resolve();
  private sleep: WakeableSleep | undefined;
  private wokenWhileBusy = false;
  /** Local epoch ms at which a message this worker let go becomes due again. */
  private knownDueAt: number | undefined;
  private slotFreed: (() => void) | undefined;
  private readonly unsubscribers: Array<() => unknown> = [];
  /** A refused wake subscription, told once. */
  private wakeProblems: ReportOnce | undefined;
  /** Removed again at stop, so a long-lived signal shared by many workers does not keep them all. */
  private readonly onSignalAbort = (): void => void this.stop();
  /** Errors with no `error` listener: one process warning per error name. */
  private readonly unheard = new UnheardErrors("RSMQ_NEXT_WORKER_ERROR", (error) => workerWarning(this.options.qname, error));

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
  constructor(
    private readonly rsmq: RedisSMQ,
    options: WorkerOptions,
  ) {
    super();
    this.options = resolveWorkerOptions(options);
    // Also fails early for anything that is not a RedisSMQ.
    this.queue = internalsOf(rsmq);
    this.extender = new VisibilityExtender(
      this.queue,
      this.options.qname,
      () => void (this.stats.extensions += 1),
      (error) => this.emitError(error),
    );
    this.mover = new DeadLetterMover(this.queue);
    this.options.signal?.addEventListener("abort", this.onSignalAbort, { once: true });
  }

  /** Counters since the worker was created (a copy). */
  get counters(): Readonly<WorkerStats> {
    return { ...this.stats };
  }

  /** Starts consuming. Calling it again, or after stop(), does nothing. */
  start(): this {
    if (this.started || this.stopping || this.options.signal?.aborted) return this;
    this.started = true;
    this.queue.workers.add(this);
    this.listenForWakes();
    this.loopDone = this.loop().catch((error: unknown) => this.emitError(error));
    return this;
  }

  /**
   * Stops receiving at once, aborts the handlers' signal, and waits up to stopTimeoutMs for
   * running handlers. Messages whose handlers did not finish reappear after their vt. Calling it
   * again returns the same promise.
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  private async shutDown(): Promise<void> {
    this.options.signal?.removeEventListener("abort", this.onSignalAbort);
    this.stopController.abort();
    this.sleep?.wake();
    this.slotFreed?.();
    await this.loopDone;
    // Removing the listeners is immediate; the UNSUBSCRIBE itself needs the server, which may be
    // down (then it would wait in the offline queue until the server is back). So it is awaited
    // only while connected, and like the handlers never longer than stopTimeoutMs.
    const unsubscribed = Promise.allSettled(this.unsubscribers.splice(0).map((unsubscribe) => Promise.resolve().then(unsubscribe)));
    const pending: Array<Promise<unknown>> = [...this.running];
    if (this.rsmq.connected) pending.push(unsubscribed);
    if (pending.length > 0) {
      const grace = wakeableSleep(this.options.stopTimeoutMs);
      await Promise.race([Promise.allSettled(pending), grace.done]);
      grace.wake();
    }
    this.extender.stopAll();
    this.queue.workers.delete(this);
    this.tell("stopped");
  }

  private get stopped(): boolean {
    return this.stopController.signal.aborted;
  }

  private async loop(): Promise<void> {
    const { qname, vt, concurrency, batchSize } = this.options;
    const internals = this.queue;
    // Set after a blind idle sleep (see looksFirst): the next poll looks before it receives.
    let lookFirst = false;
    while (!this.stopped) {
      const free = concurrency - this.running.size;
      if (free <= 0) {
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
        this.slotFreed = undefined;
        continue;
      }
      const count = Math.min(batchSize, free);
      this.wokenWhileBusy = false;
      if (lookFirst) {
        lookFirst = false;
        const knownBefore = this.knownDueAt;
        const dueMs = await this.attempt(internals.run(() => nextDue(internals.layout, qname)));
        if (dueMs === undefined) break;
        if (dueMs === FAILED) continue;
        this.forgetKnownDue(knownBefore);
        this.stats.looks += 1;
        this.tell("look", dueMs);
        if (dueMs !== 0 && !this.stopped && !this.wokenWhileBusy) {
          lookFirst = await this.idle(dueMs);
          continue;
        }
      }
      // While Redis is down the receive waits in node-redis' offline queue until the server is
      // back; stop() must not wait for that. A receive abandoned here that still returns
      // messages leaves them hidden until their vt ends: they reappear, nothing is lost.
      const knownBefore = this.knownDueAt;
      const batch = await this.attempt(internals.receiveMessages({ qname, vt }, count));
      if (batch === undefined) break;
      if (batch === FAILED) continue;
      this.forgetKnownDue(knownBefore);
      this.stats.receives += 1;
      if (batch.messages.length === 0) this.stats.emptyReceives += 1;
      this.tell("receive", batch.messages.length, batch.nextDueMs);
      for (const message of batch.messages) this.dispatch(message, batch.vt);
      // A full batch means more may be due: receive again at once.
      if (batch.messages.length === count || this.stopped || this.wokenWhileBusy) continue;
      lookFirst = await this.idle(batch.nextDueMs ?? null);
    }
  }

  /** Sleeps until `nextDueMs` (held to the floor and cap); resolves whether the next poll should only look. */
  private async idle(nextDueMs: number | null): Promise<boolean> {
    const { minIdleSleepMs, maxIdleSleepMs } = this.options;
    const plannedMs = this.idleFor(idleSleep(nextDueMs, minIdleSleepMs, maxIdleSleepMs));
    if (plannedMs <= 0) return false;
    const reason = await this.pause(plannedMs, true);
    const knownDueReached = this.knownDueAt !== undefined && this.knownDueAt <= Date.now();
    return looksFirst({ nextDueMs, plannedMs, maxMs: maxIdleSleepMs, reason, knownDueReached });
  }

  /**
   * One Redis call of the loop: its reply; undefined once the worker stops; FAILED after an error,
   * which is reported and followed by the back-off for consecutive failures.
   */
  private async attempt<T>(request: Promise<T>): Promise<T | undefined | typeof FAILED> {
    try {
      const reply = await this.unlessStopped(request);
      if (reply !== undefined) this.consecutiveFailures = 0;
      return reply;
    } catch (error) {
      this.emitError(error);
      this.consecutiveFailures += 1;
      await this.pause(receiveRetryDelay(this.consecutiveFailures), false);
      return FAILED;
    }
  }

  /** `promise`'s outcome, or undefined as soon as the worker stops (whichever comes first). */
  private unlessStopped<T>(promise: Promise<T>): Promise<T | undefined> {
    const signal = this.stopController.signal;
    if (signal.aborted) return Promise.resolve(undefined);
    return new Promise<T | undefined>((resolve, reject) => {
      const onStop = (): void => resolve(undefined);
      signal.addEventListener("abort", onStop, { once: true });
      // A late rejection after the stop lands here and is dropped: no unhandled rejection.
      promise.then(
        (value) => {
          signal.removeEventListener("abort", onStop);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener("abort", onStop);
          reject(error);
        },
      );
    });
  }

  /** The idle sleep, shortened to a due time this worker knows of (a message it let go). */
  private idleFor(ms: number): number {
    if (this.knownDueAt === undefined) return ms;
    const untilKnown = this.knownDueAt - Date.now();
    if (untilKnown <= 0) {
      // Passed: the receive just made already saw that message (or found it taken), so the
      // sleep its reply gave is the right one; sleeping 0 here would only repeat that receive.
      this.knownDueAt = undefined;
      return ms;
    }
    return Math.max(Math.min(ms, untilKnown), this.options.minIdleSleepMs);
  }

  private async pause(ms: number, wakeable: boolean): Promise<WakeReason> {
    const sleep = wakeableSleep(ms, this.stopController.signal);
    if (wakeable) this.sleep = sleep;
    this.stats.sleeps += 1;
    this.tell("sleep", ms);
    const started = Date.now();
    const reason: WakeReason = await sleep.done;
    this.stats.sleptMs += Date.now() - started;
    if (this.sleep === sleep) this.sleep = undefined;
    if (reason !== "timeout") this.tell("wake", reason);
    return reason;
  }

  /** Wakes the worker now; wakes that arrive while it is receiving make it receive once more. */
  private wake(): void {
    if (this.sleep) this.sleep.wake();
    else this.wokenWhileBusy = true;
  }

  /**
   * A poll that started after the worker let a message go saw that message's due time on the
   * server, so its reply is the better guide. Keeping the worker's own note would cut the next
   * sleep short by the few ms its clock reading lags the server's, for one more, empty, receive.
   * A message let go while the poll was in flight keeps its note.
   */
  private forgetKnownDue(knownBeforePoll: number | undefined): void {
    if (this.knownDueAt === knownBeforePoll) this.knownDueAt = undefined;
  }

  /** Wakes the worker when a message it let go becomes due again. */
  private wakeAt(dueAt: number): void {
    if (this.knownDueAt === undefined || dueAt < this.knownDueAt) this.knownDueAt = dueAt;
    this.sleep?.shortenTo(dueAt - Date.now());
  }

  private listenForWakes(): void {
    const internals = this.queue;
    const { qname } = this.options;
    this.unsubscribers.push(onQueueActivity(internals.ns, qname, () => this.wake()));
    if (!this.options.realtimeWakes) return;
    void this.subscribeForWakes(internals.layout.queue(qname).realtimeChannel);
  }

  /**
   * Subscribes to the queue's realtime channel, and when that is refused (an ACL user without the
   * channel) or fails, tries again after WAKE_RETRY_FIRST_MS, doubling up to WAKE_RETRY_MAX_MS,
   * until it works or the worker stops. Meanwhile the worker still polls at maxIdleSleepMs. The
   * failure is reported once (again only after a success).
   */
  private async subscribeForWakes(channel: string): Promise<void> {
    const problem = `wakes ${channel}`;
    this.wakeProblems ??= new ReportOnce(this, (error) => this.emitError(error));
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        const unsubscribe = await this.queue.realtimeWakes().subscribe(channel, () => this.wake());
        if (this.stopped) return void unsubscribe();
        this.unsubscribers.push(unsubscribe);
        this.wakeProblems.resolved(problem);
        // A send between the first receive and the subscription would otherwise wait for the cap.
        this.wake();
        return;
      } catch (error) {
        this.wakeProblems.report(problem, wakeSubscriptionError(error, channel, this.options.maxIdleSleepMs));
        const pause = wakeableSleep(wakeRetryDelayMs(attempt), this.stopController.signal);
        await pause.done;
      }
    }
  }

  private dispatch(message: QueueMessage, vt: number): void {
    const task = this.handle(message, vt).finally(() => {
      this.running.delete(task);
      this.slotFreed?.();
    });
    this.running.add(task);
  }

  private async handle(message: QueueMessage, vt: number): Promise<void> {
    const internals = this.queue;
    const extension = this.extender.keepHidden(message.id, vt);
    try {
      await this.options.handler(message, { signal: this.stopController.signal });
    } catch (error) {
      extension.stop();
      this.stats.failed += 1;
      this.tell("failed", message, error);
      await this.afterFailure(message, error, extension.hiddenUntil());
      return;
    }
    extension.stop();
    try {
      await internals.deleteMessage({ qname: this.options.qname, id: message.id });
      this.stats.handled += 1;
      this.tell("handled", message);
    } catch (error) {
      // The message reappears after vt and is handled again: duplicated, never lost.
      this.emitError(error);
    }
  }

  /**
   * Applies the retry policy to a failure. If a Redis call here fails, the message simply
   * reappears when its current visibility timeout ends and is judged again: nothing is lost.
   * A message no longer in the queue (deleted meanwhile, by its handler or anyone else) was not
   * retried, moved or deleted by this worker: no `retry` or `stop` event, no counter.
   */
  private async afterFailure(message: QueueMessage, error: unknown, hiddenUntil: number): Promise<void> {
    const internals = this.queue;
    const { qname, retry, onStop, deadLetterQueue } = this.options;
    const decision = retry.decide(error, message.rc);
    try {
      if (decision.action === "retry") {
        if ((await internals.hideMessage(qname, message.id, decision.delayMs)) === 0) return;
        this.stats.retried += 1;
        this.wakeAt(Date.now() + decision.delayMs);
        this.tell("retry", message, { delayMs: decision.delayMs, error });
        return;
      }
      if (onStop === "delete") {
        if ((await internals.deleteMessage({ qname, id: message.id })) === 0) return;
        this.stats.dropped += 1;
        this.tell("stop", message, { reason: decision.reason, error, action: "deleted" });
        return;
      }
      const why = { source: qname, deliveries: message.rc, reason: decision.reason, error: errorText(error) };
      if (!(await this.mover.move(qname, deadLetterQueue!, message, why))) return;
      this.stats.deadLettered += 1;
      this.tell("stop", message, { reason: decision.reason, error, action: "deadLettered" });
    } catch (redisError) {
      this.emitError(redisError);
      this.wakeAt(hiddenUntil);
    }
  }

  /**
   * Emits an event. A listener that throws must neither end the loop (which would leave a worker
   * that looks alive but never receives) nor reject a handler's task (an unhandled rejection
   * that ends the process): its error is reported as `error` instead.
   */
  private tell<E extends keyof WorkerEvents>(event: E, ...args: WorkerEvents[E]): void {
    try {
      this.emit(event, ...args);
    } catch (error) {
      this.emitError(error);
    }
  }

  private emitError(error: unknown): void {
    this.stats.errors += 1;
    if (this.listenerCount("error") === 0) return this.unheard.report(error);
    try {
      this.emit("error", error instanceof Error ? error : new Error(String(error)));
    } catch (listenerError) {
      // An `error` listener that throws has nowhere left to report to: surface it as Node does
      // for any listener, as an uncaught exception, but outside the worker's own code paths.
      process.nextTick(() => {
        throw listenerError;
      });
    }
  }
}

/** The last error, as stored with a dead-lettered message (bounded: it lives in Redis). */
function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 1000 ? `${text.slice(0, 1000)}...` : text;
}
