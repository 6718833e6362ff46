/**
 * The Worker's loop: receive, hand each message to its handler, and sleep while nothing is due.
 *
 * - It receives up to the free handler slots; while a full batch comes back, it receives again.
 * - A handler that resolves frees its slot at once; its delete waits for the loop's next receive
 *   and goes out with it, one call for both (see pending-acks.ts), or on its own at once when the
 *   loop is not about to receive. Its `handled` waits for that delete's answer.
 * - When fewer came back, nothing else is due: it sleeps as sleep-policy.ts decides (until the
 *   next due time the same reply carried, held between minIdleSleepMs and maxIdleSleepMs).
 * - A send in this process, a realtime publish from another, a retry this worker scheduled, or
 *   stop() cuts the sleep short.
 * - Held back by a pause or a rate limit, it sleeps until the block ends (held-back.ts), heeding
 *   only control wakes (a resume); running handlers go on, their deletes go out on their own.
 *   Held at the queue's concurrency limit, it sleeps until a slot frees: a `~free:` wake (any
 *   client's delete), one of its own handlers ending (its delete then rides on the receive that
 *   takes the slot), or the first lease's end; then it receives.
 * - Its looks carry its heartbeat when one is due (heartbeat.ts).
 * - It fires the queue's schedules (schedules/schedule-firer.ts) unless told not to: a first pass
 *   before its first receive, then its looks (and beats) tell the firer when the next slot is, and
 *   a `~sched:` wake, which does not wake the loop, has the firer read the schedules again.
 * - After a failed call it backs off (100 ms doubling to 15 s), which the same wakes cut short
 *   too, but no sooner than 100 ms after the failure.
 * - It reaches the queue only through a QueuePort and time only through a Clock, both passed in,
 *   so it runs the same against Redis and against a fake queue and a fake clock.
 */
import type { EventEmitter } from "events";
import type { ReceiveBlock } from "../operations/receive-block";
import type { Clock } from "./clock";
import { KnownDue } from "./known-due";
import { HandlerSignals } from "./handler-signals";
import { HandlerSlots } from "./handler-slots";
import { Heartbeat } from "./heartbeat";
import { PendingAcks, receiveCarrying } from "./pending-acks";
import type { QueuePort } from "./queue-port";
import { heldBackSleep, isBlock } from "./held-back";
import { looksFirst, receiveRetryDelay } from "./sleep-policy";
import { LoopSleep } from "./loop-sleep";
import { VisibilityExtender } from "./visibility-extender";
import { listenForWakes } from "./wake-listening";
import type { ResolvedWorkerOptions } from "./worker-option-table";
import { WorkerReporter } from "./worker-reporter";
import type { WorkerStats } from "./worker-stats";
import type { Recorder, WakeupCause, WakeupResult } from "../telemetry/recorder";
import { ScheduleFirer } from "../schedules/schedule-firer";
import { isScheduleWake } from "../schedules/schedule-wake";
import { FreshWakes } from "../wakes/fresh-wakes";

/** The loop's ports: the queue's I/O, the clock, and randomness (uniform in [0, 1); Math.random by default). */
export interface WorkerPorts {
  queue: QueuePort;
  clock: Clock;
  random?: () => number;
}

/** What a loop call that failed (and was reported and backed off) resolves to. */
const FAILED = Symbol("failed");

/** The loop's next poll: a look (read-only) before it receives, or a receive; none once stopped. */
type NextPoll = "look" | "receive" | "stop";

/** A Worker's loop and lifecycle: start, the polls and sleeps, the handlers, stop. */
export class WorkerLoop {
  private readonly reporter: WorkerReporter;
  private readonly queue: QueuePort;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly stopController = new AbortController();
  /** The handlers running: a message's slot frees when its handler ends and its delete is queued. */
  private readonly slots: HandlerSlots;
  /** Deletes of handled messages held for the next receive. */
  private readonly acks: PendingAcks;
  private readonly extender: VisibilityExtender;
  /** Its entry among the queue's consumers; none where the queue keeps none (a fake queue). */
  private readonly heartbeat: Heartbeat | undefined;
  private started = false;
  /** Calls of the loop that failed in a row: they set the back-off. */
  private consecutiveFailures = 0;
  private stopping: Promise<void> | undefined;
  /** Set when stop() has finished: a handler still running then is abandoned. */
  private hasStopped = false;
  private loopDone: Promise<void> = Promise.resolve();
  /** Its sleeps, and the wakes that end them. */
  private readonly sleeps: LoopSleep;
  /** When a message this worker let go (a retry it scheduled) is due: it shortens the idle sleep. */
  private readonly knownDue = new KnownDue();
  /** Ends the poll in flight with no reply (see unlessStopped): called by stop(). */
  private abandonPoll: (() => void) | undefined;
  private readonly unsubscribers: Array<() => unknown> = [];
  /** Takes the worker off its RedisSMQ instance's list. */
  private delist: (() => void) | undefined;
  /** What woke the worker from its last idle sleep, while telemetry records: counted with what the next poll finds. */
  private wokeBy: WakeupCause | undefined;
  /** The recorder told of this worker's handler slots at start, told again at stop. */
  private slotsRecordedBy: Recorder | undefined;
  /** Fires the queue's schedules; none where the queue port gives none (`schedules: false`). */
  private readonly firer: ScheduleFirer | undefined;
  /** A schedule change made in this process is heard twice (the hub and the channel): one read. */
  private readonly scheduleWakes = new FreshWakes();
  /** Removed again at stop, so a long-lived signal shared by many workers does not keep them all. */
  private readonly onSignalAbort = (): void => void this.stop();

  /** @param events where events go (the Worker itself) */
  constructor(
    private readonly options: ResolvedWorkerOptions,
    ports: WorkerPorts,
    events: EventEmitter,
  ) {
    this.queue = ports.queue;
    this.clock = ports.clock;
    this.random = ports.random ?? Math.random;
    this.reporter = new WorkerReporter(events, options.qname);
    this.acks = new PendingAcks((id, rc) => this.queue.remove(id, rc));
    this.sleeps = new LoopSleep(this.clock, this.stopController.signal, this.reporter, this.acks);
    const { stats } = this.reporter;
    const reportError = (error: unknown): void => this.reporter.error(error);
    this.extender = new VisibilityExtender(
      (id, ms, rc) => this.queue.hide(id, ms, rc),
      this.clock,
      () => void (stats.extensions += 1),
      reportError,
    );
    const handling = {
      options,
      queue: this.queue,
      acknowledge: (id: string, rc: number) => this.acks.add(id, rc),
      clock: this.clock,
      extender: this.extender,
      reporter: this.reporter,
      signals: new HandlerSignals(this.stopController.signal, options.qname, (message) => this.reporter.cancelled(message)),
      dueAgainAt: (at: number) => this.wakeAt(at),
      hasStopped: () => this.hasStopped,
      telemetry: this.queue.telemetry,
      carrierOf: this.queue.carrierOf,
    };
    this.slots = new HandlerSlots(options.concurrency, handling, this.acks, () => this.sleeps.slotFreed());
    const { queue } = this;
    if (queue.beat && queue.removeConsumer) {
      const consumers = { beat: queue.beat.bind(queue), removeConsumer: queue.removeConsumer.bind(queue) };
      this.heartbeat = new Heartbeat(consumers, this.clock, options, reportError);
    }
    if (queue.schedules) {
      const firer = new ScheduleFirer(queue.schedules, this.clock, { error: reportError });
      queue.schedules.watchDue((ms) => firer.noteDue(ms));
      this.firer = firer;
    }
    options.signal?.addEventListener("abort", this.onSignalAbort, { once: true });
  }

  /** Counters since the worker was created (a copy). */
  get counters(): WorkerStats {
    return { ...this.reporter.stats };
  }

  /** Starts the loop; again, or after stop(), does nothing. */
  start(): void {
    if (this.started || this.stopping || this.options.signal?.aborted) return;
    this.started = true;
    this.delist = this.queue.enlist(this);
    this.slotsRecordedBy = this.queue.telemetry?.recording;
    this.slotsRecordedBy?.concurrency(this.options.qname, this.options.concurrency);
    this.heartbeat?.start();
    this.loopDone = this.run().catch((error: unknown) => this.reporter.error(error));
  }

  /**
   * The first pass over the queue's schedules (a slot missed while no process fired is caught up
   * at once), then the wakes and the loop. One after the other, so the worker keeps one call in
   * flight at a time, which never makes its instance open a second connection (pool-growth.ts).
   */
  private async run(): Promise<void> {
    const { firer } = this;
    if (firer) await this.unlessStopped(() => firer.start());
    if (this.stopped) return;
    listenForWakes({
      queue: this.queue,
      clock: this.clock,
      signal: this.stopController.signal,
      problems: this.reporter.problems,
      maxIdleSleepMs: this.options.maxIdleSleepMs,
      realtimeWakes: this.options.realtimeWakes,
      heard: (id) => this.heard(id),
      lookNow: () => this.sleeps.wake(),
      keep: (unsubscribe) => this.unsubscribers.push(unsubscribe),
    });
    await this.loop();
  }

  /** A wake from the hub or a channel: a schedule change goes to the firer, anything else to the loop's sleep. */
  private heard(id: string | undefined): void {
    if (!isScheduleWake(id)) return this.sleeps.wakeFor(id);
    if (this.scheduleWakes.fresh(id)) this.firer?.refresh();
  }

  /** Stops the loop and waits for running handlers (at most stopTimeoutMs); the same promise every time. */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  private async shutDown(): Promise<void> {
    this.options.signal?.removeEventListener("abort", this.onSignalAbort);
    this.stopController.abort();
    this.abandonPoll?.();
    this.sleeps.end();
    this.slots.release();
    // No slot fires after the stop; a fire call in flight ends by itself, like a poll.
    const firerStopped = this.firer?.stop().catch((error: unknown) => this.reporter.error(error));
    await this.loopDone;
    // Removing the listeners is immediate; the UNSUBSCRIBE itself needs the server, which may be
    // down (then it would wait in the offline queue until the server is back). So it is awaited
    // only while connected, and like the handlers never longer than stopTimeoutMs.
    const unsubscribed = Promise.allSettled(this.unsubscribers.splice(0).map((unsubscribe) => Promise.resolve().then(unsubscribe)));
    // Its entry leaves the list of consumers, as bounded as the rest (it lapses by itself anyway).
    const delisted = this.heartbeat?.stop().catch((error: unknown) => this.reporter.error(error));
    const pending: Array<Promise<unknown>> = [...this.slots.running];
    if (this.queue.connected) pending.push(unsubscribed, ...(delisted ? [delisted] : []), ...(firerStopped ? [firerStopped] : []));
    if (pending.length > 0) {
      const grace = this.clock.sleep(this.options.stopTimeoutMs);
      await Promise.race([Promise.allSettled(pending), grace.done]);
      grace.wake();
    }
    this.extender.stopAll();
    this.slotsRecordedBy?.concurrency(this.options.qname, -this.options.concurrency);
    this.delist?.();
    this.hasStopped = true;
    this.reporter.stopped();
  }

  private get stopped(): boolean {
    return this.stopController.signal.aborted;
  }

  private async loop(): Promise<void> {
    // After a blind idle sleep (see looksFirst) the next poll looks before it receives.
    let next: NextPoll = "receive";
    while (next !== "stop" && !this.stopped) {
      // About to receive (at once, or once a slot frees): deletes queued meanwhile ride along.
      if (next === "receive" && this.combines) this.acks.hold();
      else this.acks.release();
      const { free } = this.slots;
      if (free <= 0) {
        await this.slots.whenFree();
        continue;
      }
      this.sleeps.pollStarts();
      const looked: NextPoll | "due" = next === "look" ? await this.look() : "due";
      next = looked === "due" ? await this.receive(Math.min(this.options.batchSize, free)) : looked;
    }
    // Stopped: what is held goes out now, and stop() waits for it with the handlers.
    this.acks.release();
  }

  /** Whether deletes ride on receives: the queue has the combined call and uses it now. */
  private get combines(): boolean {
    return this.queue.deleteAndReceive !== undefined && this.queue.combinesDeletes !== false;
  }

  /** A read-only look; "due" when a message is due (or a wake came, or a stop): receive now. */
  private async look(): Promise<NextPoll | "due"> {
    const beat = this.heartbeat?.forLook();
    const dueMs = await this.poll(() => this.queue.nextDue(beat));
    if (dueMs === undefined) return "stop";
    if (dueMs === FAILED) return "receive";
    if (beat) this.heartbeat!.beaten();
    this.reporter.stats.looks += 1;
    if (this.wokeBy !== undefined) this.wokenUp(dueMs === 0 ? "message" : "empty");
    if (isBlock(dueMs)) {
      this.reporter.tell("look", dueMs.retryMs, beat !== undefined);
      return this.holdBack(dueMs);
    }
    this.reporter.tell("look", dueMs, beat !== undefined);
    if (dueMs === 0 || this.stopped || this.sleeps.wokenWhileBusy) return "due";
    return this.idle(dueMs);
  }

  /** Receives up to `count` messages and dispatches them; then sleeps unless more may be due. */
  private async receive(count: number): Promise<NextPoll> {
    // Also after a look: deletes queued while this receive is out ride on the next one.
    if (this.combines) this.acks.hold();
    // Telemetry may have started observing since they were held: then they go on their own.
    if (!this.combines) this.acks.release();
    const batch = await this.poll(() => receiveCarrying(this.acks, this.queue, count));
    if (batch === undefined) return "stop";
    if (batch === FAILED) return "receive";
    const { stats } = this.reporter;
    stats.receives += 1;
    if (batch.messages.length === 0) stats.emptyReceives += 1;
    if (this.wokeBy !== undefined) this.wokenUp(batch.messages.length > 0 ? "message" : "empty");
    this.reporter.tell("receive", batch.messages.length, batch.nextDueMs);
    for (const message of batch.messages) this.slots.dispatch(message, batch.vt);
    // Held back (a batch the limit cut short included): no more until the block ends.
    if (batch.blocked !== undefined) return this.holdBack(batch.blocked);
    // A full batch means more may be due: receive again at once.
    if (batch.messages.length === count || this.stopped || this.sleeps.wokenWhileBusy) return "receive";
    return this.idle(batch.nextDueMs ?? null);
  }

  /** Sleeps as planned for `nextDueMs`; resolves with the poll to make next. */
  private async idle(nextDueMs: number | null): Promise<NextPoll> {
    const { minIdleSleepMs: minMs, maxIdleSleepMs: maxMs } = this.options;
    const ms = this.knownDue.planSleep({ nextDueMs, minMs, maxMs, now: this.clock.now() });
    if (ms <= 0) return "receive";
    const reason = await this.sleeps.pause(ms, "idle");
    const knownDueReached = this.knownDue.reached(this.clock.now());
    const looks = looksFirst({ nextDueMs, plannedMs: ms, maxMs, reason, knownDueReached });
    if (this.queue.telemetry?.recording !== undefined && reason !== "aborted") {
      this.wokeBy = reason === "woken" ? "notification" : looks ? "cap" : "timer";
    }
    return looks ? "look" : "receive";
  }

  /**
   * Sleeps while `block` holds receives back (held-back.ts); after a sleep of the full cap, a look.
   * At the concurrency limit its own handlers' deletes are held meanwhile: the first one wakes it,
   * and rides on the receive that takes the slot it frees; a look would only say "due" there.
   */
  private async holdBack(block: ReceiveBlock): Promise<NextPoll> {
    this.reporter.stats.heldBack += 1;
    this.reporter.tell("heldBack", block);
    const atLimit = block.reason === "maxed";
    // A resume or a freed slot heard while the poll was out: its block may already be over.
    if (this.sleeps.controlWokenWhileBusy || this.stopped) return "receive";
    if (atLimit && (this.sleeps.slotFreedWhileBusy || this.acks.waiting)) return "receive";
    const { maxIdleSleepMs: maxMs } = this.options;
    const ms = heldBackSleep(block, maxMs, this.random);
    const reason = await this.sleeps.heldBack(ms, atLimit, atLimit && this.combines);
    if (atLimit) return "receive";
    return looksFirst({ nextDueMs: block.retryMs, plannedMs: ms, maxMs, reason, knownDueReached: false }) ? "look" : "receive";
  }

  /** Counts the wakeup with what the poll after it found. */
  private wokenUp(result: WakeupResult): void {
    this.queue.telemetry?.recording?.wakeup(this.options.qname, this.wokeBy!, result);
    this.wokeBy = undefined;
  }

  /**
   * One poll: its reply; undefined once the worker stops (see abandonPoll); FAILED after an
   * error, which is reported and followed by the back-off for consecutive failures. A reply
   * replaces the known due time (see KnownDue.pollStarted).
   *
   * A receive abandoned at a stop that still returns messages leaves them hidden until their vt
   * ends: they reappear, nothing is lost.
   */
  private async poll<T>(call: () => Promise<T>): Promise<T | undefined | typeof FAILED> {
    const replied = this.knownDue.pollStarted();
    try {
      const reply = await this.unlessStopped(call);
      if (reply === undefined) return reply;
      this.consecutiveFailures = 0;
      replied();
      return reply;
    } catch (error) {
      this.reporter.error(error);
      this.consecutiveFailures += 1;
      await this.sleeps.pause(receiveRetryDelay(this.consecutiveFailures), "backOff");
      return FAILED;
    }
  }

  /**
   * `call`'s outcome, or undefined as soon as the worker stops (whichever comes first): while
   * Redis is down a call waits in node-redis' offline queue until the server is back, and a stop
   * must not wait for that. A late rejection after the stop is dropped. The stop ends it through
   * abandonPoll, not an abort listener: adding and removing one per poll cost more client CPU than
   * the rest of the loop's work for a message.
   */
  private unlessStopped<T>(call: () => Promise<T>): Promise<T | undefined> {
    if (this.stopped) return Promise.resolve(undefined);
    // Left in place after the reply: resolving a settled promise does nothing.
    return new Promise<T | undefined>((resolve, reject) => {
      this.abandonPoll = () => resolve(undefined);
      call().then(resolve, reject);
    });
  }

  /** Wakes the worker when a message it let go becomes due again. */
  private wakeAt(dueAt: number): void {
    this.knownDue.note(dueAt);
    // Held back, the message could not be taken before the block ends anyway.
    this.sleeps.shortenTo(dueAt - this.clock.now());
  }
}
