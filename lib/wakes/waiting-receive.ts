/**
 * A receive that waits (long polling, SQS's WaitTimeSeconds): the call looks once, as a plain
 * receive does; when nothing was due and `waitMs` > 0 it sleeps until a message may be due and
 * looks again, and resolves with the first look that got something, or with the last look's
 * (empty) answer when the wait ends. What ends a sleep early:
 * - a send (or visibility change) from this process: the in-process wake hub;
 * - a wake or a realtime notification from another process: the instance's shared subscriptions
 *   to the queue's wake and realtime channels (lingering-subscription.ts), the ones its Workers
 *   listen on;
 * - the due time the last look reported (a delayed or in-flight message), when within the wait.
 * Wakes are coalesced: any number of them during a sleep or a look make one more look.
 *
 * A look the queue held back (paused, rate-limited: ReceivedBatch.blocked) sleeps until the retry
 * time it told (a pause without `until`: to the end of the wait) and heeds only control wakes
 * meanwhile (a resume's `~resume:...`, isControlWake): sends cannot be taken before then, so their
 * wakes would only cost looks. A resume makes it look at once, so a receive waiting when the queue
 * was paused gets a message as soon as the queue resumes, within its waitMs.
 *
 * Each look is one receive script call (one command). An empty wait costs exactly two: the first
 * look and one final look when the wait ends, which finds a message sent by a producer that
 * publishes nothing (rsmq 0.12.4's at its default `realtime: false`). The first waiting call on a
 * queue that no call or Worker of the instance listens on yet makes one look more, right after
 * its SUBSCRIBEs are confirmed, so a send published between its first look and the
 * subscriptions is not missed.
 */
import type { RedisSMQInternals, StoppableWorker } from "../internals";
import { rsmqError } from "../errors/rsmq-errors";
import { explainRefusal } from "../errors/refusals";
import { isPermissionRefusal } from "../errors/permission-errors";
import type { ReceivedBatch } from "../operations/receive-message";
import type { ReceiveMessageOptions } from "../types";
import { wakeableSleep } from "../worker/wakeable-sleep";
import { holdChannel } from "./lingering-subscription";
import type { Hold } from "./lingering-subscription";
import type { RealtimeWakes } from "./realtime-wakes";
import { onQueueActivity } from "./wake-hub";
import { FreshWakes } from "./fresh-wakes";
import { isControlWake } from "../operations/receive-block";
import type { ReceiveBlock } from "../operations/receive-block";

/** The longest wait a receive may ask for, in ms (SQS's WaitTimeSeconds allows 20 s). */
export const MAX_WAIT_MS = 60_000;

/** `waitMs`: a whole number of ms from 0 to MAX_WAIT_MS (a new option, so no parseInt leniency). */
export function validateWaitMs(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > MAX_WAIT_MS) {
    throw rsmqError("invalidValue", `waitMs must be a whole number of milliseconds between 0 and ${MAX_WAIT_MS}`);
  }
  return value;
}

/** `signal`: an AbortSignal, or none. */
export function validateSignal(value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  if (!(value instanceof AbortSignal)) throw rsmqError("invalidValue", "signal must be an AbortSignal");
  return value;
}

/** What a wait ended by the instance's quitAsync() (or the user's close of rsmq.redis) rejects with. */
export function quitWhileWaitingError(): Error {
  return rsmqError(
    "connectionClosed",
    "rsmq-next: this RedisSMQ instance quit (quitAsync) while a receive waited (waitMs); the wait ended with no message",
  );
}

/** Why a wait ends before its time. */
const ABORTED = "aborted";
const QUIT = "quit";

/**
 * Runs `look` (one receive) once, and with `waitMs` again as described above. Without `waitMs`
 * (or 0) and without `signal` it is `look()` itself: the same command, the same bytes.
 * Bad `waitMs` or `signal` throws before any round trip; an aborted signal rejects before any.
 */
export function waitingReceive(
  internals: RedisSMQInternals,
  options: Partial<ReceiveMessageOptions>,
  look: () => Promise<ReceivedBatch>,
): Promise<ReceivedBatch> {
  if (options.waitMs === undefined && options.signal === undefined) return look();
  let waitMs: number;
  let signal: AbortSignal | undefined;
  try {
    waitMs = validateWaitMs(options.waitMs);
    signal = validateSignal(options.signal);
  } catch (error) {
    return Promise.reject(error);
  }
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  if (waitMs === 0) return look();
  return new WaitingCall(internals, String(options.qname), waitMs, signal, look).run();
}

/** What a refused or failed wake subscription of a waiting receive is told as: what failed, why, what the call does instead. */
export function waitSubscriptionError(error: unknown, channel: string): Error {
  const meanwhile =
    " Waiting receives on this queue wait without it: each looks again at the next due time and at the end of its wait, " +
    "so a message sent meanwhile by another process is received late, not lost.";
  if (isPermissionRefusal(error)) {
    const named = explainRefusal(error, { operation: `A waiting receive's wake subscription to ${channel}`, channel });
    named.message += meanwhile;
    return named;
  }
  const text = error instanceof Error ? error.message : String(error);
  const reported = new Error(`A waiting receive's wake subscription to ${channel} failed: ${text}.${meanwhile}`);
  if (error instanceof Error) reported.name = error.name;
  return reported;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

class WaitingCall implements StoppableWorker {
  /** A wake arrived since the last look was sent: look again before sleeping. */
  private woken = false;
  private sleep: ReturnType<typeof wakeableSleep> | undefined;
  /** The bound on the wait for the subscription's confirmation: quit cuts it short too. */
  private subscribing: ReturnType<typeof wakeableSleep> | undefined;
  private quit = false;
  private finished: Promise<unknown> = Promise.resolve();
  private readonly freshWakes = new FreshWakes();
  /** What held the last look back (a pause, a rate limit); undefined when it was not held back. */
  private blocked: ReceiveBlock | undefined;
  /**
   * From the hub or a channel: the second wake of one send or resume (both carry its text) is dropped, and
   * while the last look was held back, every wake but a control wake (a resume).
   */
  private readonly wake = (id?: string): void => {
    if (this.blocked !== undefined && !isControlWake(id)) return;
    if (!this.freshWakes.fresh(id)) return;
    this.woken = true;
    this.sleep?.wake();
  };

  constructor(
    private readonly internals: RedisSMQInternals,
    private readonly qname: string,
    private readonly waitMs: number,
    private readonly signal: AbortSignal | undefined,
    private readonly look: () => Promise<ReceivedBatch>,
  ) {}

  run(): Promise<ReceivedBatch> {
    const running = this.waitFor();
    this.finished = running.catch(() => undefined);
    return running;
  }

  /** quitAsync(): ends the sleep; resolves once a look in flight has finished (its message is not lost). */
  stop(): Promise<void> {
    this.quit = true;
    this.sleep?.wake();
    this.subscribing?.wake();
    return this.finished.then(() => undefined);
  }

  private async waitFor(): Promise<ReceivedBatch> {
    const deadline = Date.now() + this.waitMs;
    const stopHub = onQueueActivity(this.internals.ns, this.qname, this.wake);
    this.internals.workers.add(this);
    let holds: Hold[] = [];
    try {
      let batch = await this.lookNow();
      if (batch.messages.length > 0) return batch;
      this.failIfEnded();
      holds = await this.subscribe(deadline);
      this.failIfEnded();
      // A send published before a SUBSCRIBE took effect was heard by no one: look once more.
      if (holds.some((hold) => !hold.wasLive)) this.woken = true;
      for (;;) {
        const remaining = deadline - Date.now();
        const final = remaining <= 0;
        if (!final && !this.woken) {
          const ended = await this.sleepFor(remaining, batch.nextDueMs);
          if (ended === ABORTED) throw abortReason(this.signal as AbortSignal);
          if (ended === QUIT) throw quitWhileWaitingError();
          // The end of the wait (or a timer a ms early): the loop's top makes the final look.
          if (ended === "timeout") continue;
        }
        batch = await this.lookNow();
        // A message in hand is never dropped, whatever ended the wait meanwhile: it is hidden for vt.
        if (batch.messages.length > 0) return batch;
        this.failIfEnded();
        if (final) return batch;
      }
    } finally {
      stopHub();
      for (const hold of holds) hold.release();
      this.internals.workers.delete(this);
    }
  }

  /** After an empty look: an abort or a quit meanwhile ends the wait (nothing was received, so nothing is lost). */
  private failIfEnded(): void {
    if (this.signal?.aborted) throw abortReason(this.signal);
    if (this.quit) throw quitWhileWaitingError();
  }

  private async lookNow(): Promise<ReceivedBatch> {
    this.woken = false;
    const batch = await this.look();
    this.blocked = batch.blocked;
    return batch;
  }

  /**
   * The shared subscriptions to the queue's wake and realtime channels, each on its own: one
   * refused or failed is left out, and with none the wait ends at the due time or the end. Their
   * confirmations are awaited until the deadline at most (a subscriber connection that is down
   * must not hold the call past its wait), or an abort or quit.
   */
  private async subscribe(deadline: number): Promise<Hold[]> {
    const wakes = this.internals.realtimeWakes();
    const { wakeChannel, realtimeChannel } = this.internals.layout.queue(this.qname);
    const bound = wakeableSleep(deadline - Date.now(), this.signal);
    this.subscribing = bound;
    try {
      const holds = await Promise.all([wakeChannel, realtimeChannel].map((channel) => this.hold(wakes, channel, bound.done)));
      const held = holds.filter((hold): hold is Hold => hold !== undefined);
      // Its health check rides the looks, as a Worker's does (a PING only after MAX_WAIT_MS of silence).
      if (held.length > 0) wakes.tick(MAX_WAIT_MS);
      return held;
    } finally {
      bound.wake();
      this.subscribing = undefined;
    }
  }

  /** One channel's hold, or none when it is refused or fails or `ended` comes first. */
  private async hold(wakes: RealtimeWakes, channel: string, ended: Promise<unknown>): Promise<Hold | undefined> {
    const holding = holdChannel(wakes, channel, this.wake);
    try {
      const hold = await Promise.race([holding, ended.then(() => undefined)]);
      if (!hold) {
        // Confirmed too late for this call: let it go at once.
        holding.then((late) => late.release()).catch(() => undefined);
        return undefined;
      }
      return hold;
    } catch (error) {
      // The call still works without it (the final look), but the user must hear why it waits deaf.
      if (!this.quit) this.internals.reportProblem(`waiting receive subscription ${channel}`, waitSubscriptionError(error, channel));
      return undefined;
    }
  }

  /**
   * Sleeps until a wake, the next due time (when sooner) or the end of the wait. A held-back look's
   * nextDueMs is its retry time (null for a pause without `until`: the end of the wait).
   */
  private async sleepFor(remaining: number, nextDueMs: number | null | undefined): Promise<string> {
    if (this.quit) return QUIT;
    const due = typeof nextDueMs === "number" && nextDueMs < remaining;
    // At least 1 ms: a due time of 0 must not make the waiters spin.
    this.sleep = wakeableSleep(due ? Math.max(1, nextDueMs) : remaining, this.signal);
    const reason = await this.sleep.done;
    this.sleep = undefined;
    if (reason === "aborted") return ABORTED;
    if (this.quit) return QUIT;
    return reason === "timeout" && due ? "due" : reason;
  }
}
