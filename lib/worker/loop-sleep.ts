/**
 * The Worker loop's sleeps and what ends them: one sleep at a time (idle, held back, or an error
 * back-off), and the wakes that come while none runs, kept for the poll in flight to read.
 *
 * - An idle sleep ends at once on a wake; an error back-off too (the error's cause may be gone),
 *   but never sooner than backOffLeftAfterWake allows; a wake that came while the failing call was
 *   in flight counts.
 * - Held back (a pause, a rate limit, the concurrency limit), only control wakes count
 *   (wake-filter.ts): `~resume:`, `~free:` and the like.
 * - At the concurrency limit one of the worker's own handlers ending (its slot freed) ends the
 *   sleep too: the receive after it takes the slot.
 */
import type { Clock } from "./clock";
import type { PendingAcks } from "./pending-acks";
import { backOffLeftAfterWake } from "./sleep-policy";
import type { WakeReason, WakeableSleep } from "./wakeable-sleep";
import { WakeFilter } from "./wake-filter";
import type { WorkerReporter } from "./worker-reporter";

export class LoopSleep {
  /** The idle sleep running, which a wake ends at once. */
  private sleep: WakeableSleep | undefined;
  /** Ends the error back-off running, as a wake does (see backOffLeftAfterWake). */
  private wakeBackOff: (() => void) | undefined;
  readonly wakes = new WakeFilter();
  /** A wake came while no sleep ran: the poll in flight may have missed what it announced. */
  wokenWhileBusy = false;
  /** A control wake (a resume) came while no sleep ran: a block the poll in flight reports may be over. */
  controlWokenWhileBusy = false;
  /** A handler slot freed while no sleep at the concurrency limit ran: a `maxed` the poll in flight reports is over for it. */
  slotFreedWhileBusy = false;
  /** Set while the worker sleeps at the queue's concurrency limit: a handler of its own ending wakes it. */
  atLimit = false;

  constructor(
    private readonly clock: Clock,
    private readonly stopSignal: AbortSignal,
    private readonly reporter: WorkerReporter,
    private readonly acks: Pick<PendingAcks, "hold" | "release">,
  ) {}

  /** A poll starts: what came before it, it sees. */
  pollStarts(): void {
    this.wokenWhileBusy = false;
    this.controlWokenWhileBusy = false;
    this.slotFreedWhileBusy = false;
  }

  /**
   * Sleeps `ms` (an idle sleep, or an error back-off) unless woken or stopped. `holdAcks`: deletes
   * wait for the receive that follows (at the concurrency limit, where the first of them ends the sleep).
   */
  async pause(ms: number, kind: "idle" | "backOff", holdAcks = false): Promise<WakeReason> {
    // No delete waits behind a sleep, but for the one that ends it.
    if (holdAcks) this.acks.hold();
    else this.acks.release();
    const sleep = this.clock.sleep(ms, this.stopSignal);
    const started = this.clock.now();
    let woken = false;
    const wakeBackOff = (): void => {
      woken = true;
      sleep.shortenTo(backOffLeftAfterWake(this.clock.now() - started));
    };
    if (kind === "idle") this.sleep = sleep;
    else this.wakeBackOff = wakeBackOff;
    const { stats } = this.reporter;
    stats.sleeps += 1;
    this.reporter.tell("sleep", ms);
    if (kind === "backOff" && this.wokenWhileBusy) wakeBackOff();
    const ended: WakeReason = await sleep.done;
    stats.sleptMs += this.clock.now() - started;
    if (this.sleep === sleep) this.sleep = undefined;
    if (this.wakeBackOff === wakeBackOff) this.wakeBackOff = undefined;
    // A back-off a wake cut short ends on its (shortened) timer: it was woken all the same.
    const reason = woken && ended === "timeout" ? "woken" : ended;
    if (reason !== "timeout") this.reporter.tell("wake", reason);
    return reason;
  }

  /** Sleeps while held back (only control wakes count); `atLimit`: its own handlers ending wake it too. */
  async heldBack(ms: number, atLimit: boolean, holdAcks: boolean): Promise<WakeReason> {
    this.wakes.held = true;
    this.atLimit = atLimit;
    try {
      return await this.pause(ms, "idle", holdAcks);
    } finally {
      this.atLimit = false;
      this.wakes.held = false;
    }
  }

  /** Wakes the worker now (a back-off, soon); wakes that arrive while it is polling make it receive once more. */
  wake(control = false): void {
    if (this.sleep) this.sleep.wake();
    else if (this.wakeBackOff) this.wakeBackOff();
    else {
      this.wokenWhileBusy = true;
      this.controlWokenWhileBusy ||= control;
    }
  }

  /** A wake from the hub or a channel, as the filter judges it (see wake-filter.ts). */
  wakeFor(id: string | undefined): void {
    const verdict = this.wakes.verdict(id);
    if (verdict !== "drop") this.wake(verdict === "control");
  }

  /** A handler slot freed: at the concurrency limit, the worker receives at once. */
  slotFreed(): void {
    if (this.atLimit) this.sleep?.wake();
    else this.slotFreedWhileBusy = true;
  }

  /** Ends an idle sleep at once (stop). */
  end(): void {
    this.sleep?.wake();
  }

  /** Brings an idle sleep's end forward to `ms` from now, unless held back (nothing could be taken sooner then). */
  shortenTo(ms: number): void {
    if (!this.wakes.held) this.sleep?.shortenTo(ms);
  }
}
