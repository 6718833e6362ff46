/**
 * A Worker's heartbeat: its entry among the queue's consumers (listConsumersAsync), written in
 * the look it makes anyway, so an idle Worker's cost does not change (lookAndBeat answers exactly
 * as the look does).
 *
 * - An entry lives `2 x cap` without a beat (cap: maxIdleSleepMs, at least MIN_CAP_MS): a Worker
 *   killed without a stop drops off the list within two caps of its last beat.
 * - A look made half a cap or more after the last beat carries one. An idle Worker looks once per
 *   cap, so each of its looks beats; a busy one receives without looking, so after 1.5 caps with
 *   no beat it beats on its own (its reply, a look's, is not needed).
 * - A Worker is listed from its first beat: its first look, at the latest 1.5 caps after start.
 * - stop() removes the entry, if a beat ever went out.
 */
import { hostname } from "os";
import { beatJson, MAX_BEAT_TTL_MS, newWorkerId } from "../operations/consumer-beat";
import type { ConsumerBeat } from "../operations/consumer-beat";
import type { Clock } from "./clock";
import type { QueuePort } from "./queue-port";
import type { WakeableSleep } from "./wakeable-sleep";

/** The shortest cap a heartbeat runs on: a Worker that never sleeps would otherwise beat in every look. */
export const MIN_CAP_MS = 1000;

export class Heartbeat {
  /** What each beat writes; set at start (the entry's `startedAt`). */
  private beat: ConsumerBeat | undefined;
  readonly workerId = newWorkerId();
  private readonly capMs: number;
  private readonly ttlMs: number;
  /** Local epoch ms of the last beat answered; -Infinity before the first. */
  private lastBeatAt = Number.NEGATIVE_INFINITY;
  /** Whether a beat was sent (so an entry may exist to remove at stop). */
  private sent = false;
  /** The sleep until this Worker's own beat is due; none once stopped. */
  private timer: WakeableSleep | undefined;
  private stopped = false;

  /**
   * @param queue where it beats (in a look, or on its own) and is removed
   * @param onError told of an own beat that failed (the look's failures are the loop's)
   */
  constructor(
    private readonly queue: Required<Pick<QueuePort, "beat" | "removeConsumer">>,
    private readonly clock: Clock,
    private readonly options: { concurrency: number; maxIdleSleepMs: number },
    private readonly onError: (error: unknown) => void,
  ) {
    this.capMs = Math.max(options.maxIdleSleepMs, MIN_CAP_MS);
    this.ttlMs = Math.min(2 * this.capMs, MAX_BEAT_TTL_MS);
  }

  /** Describes the Worker as started now, and arms its own beat 1.5 caps from now (a look before then beats instead). */
  start(): void {
    const json = beatJson(hostname(), process.pid, this.options.concurrency, this.clock.now());
    this.beat = { workerId: this.workerId, json, ttlMs: this.ttlMs };
    this.arm(1.5 * this.capMs);
  }

  /** The beat a look made now carries: one when half a cap has passed since the last; none before start or once stopped. */
  forLook(): ConsumerBeat | undefined {
    if (this.beat === undefined || this.stopped || this.clock.now() - this.lastBeatAt < this.capMs / 2) return undefined;
    this.sent = true;
    return this.beat;
  }

  /** A look that carried the beat was answered. */
  beaten(): void {
    this.lastBeatAt = this.clock.now();
    this.arm(1.5 * this.capMs);
  }

  /** Stops beating; resolves once the entry is removed (at once when no beat ever went out). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.wake();
    this.timer = undefined;
    if (this.sent) await this.queue.removeConsumer(this.workerId);
  }

  /** (Re)arms the own beat `ms` from now. */
  private arm(ms: number): void {
    if (this.stopped) return;
    this.timer?.wake();
    const timer = this.clock.sleep(ms);
    this.timer = timer;
    timer.done.then((reason) => {
      if (reason === "timeout" && this.timer === timer) this.beatAlone();
    }, this.onError);
  }

  /** The Worker's own beat: a busy Worker makes no look to carry it. */
  private beatAlone(): void {
    const beat = this.forLook();
    if (beat === undefined) return;
    this.queue.beat(beat).then(
      () => this.beaten(),
      (error: unknown) => {
        if (this.stopped) return;
        this.onError(error);
        // Tried again half a cap later; the entry outlives one failed beat.
        this.arm(this.capMs / 2);
      },
    );
  }
}
