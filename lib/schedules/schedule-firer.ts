/**
 * Fires one queue's schedules from one process. Any number of processes may run one per queue
 * (every Worker of the queue, every Scheduler that names it): the fire script decides on the
 * server, against the slot it last handled, so each slot sends one message whoever fires it, and a
 * firer that lost the race only learns the next slot.
 *
 * A pass is one read of the queue's schedules (with the server's time) and, for each schedule the
 * planner finds due (fire-plan.ts), one fire call; then a timer to the earliest next slot. All
 * times come from the server: the timer's length is the next slot minus the server time of the
 * read, less what passed here since, so a host clock that is off moves nothing.
 *
 * What starts a pass besides its timer:
 * - `start()`: a schedule missed while no process fired it is caught up at once;
 * - `refresh()`: a definition changed (a `~sched:` control wake from any process);
 * - `noteDue(ms)`: a Worker's look read the queue's earliest next slot (`schednext`) for free;
 *   it re-arms the timer, and 0 (due, or a next slot not settled yet) makes a pass now;
 * - with `capMs` (a Scheduler), at least one pass per cap: a change whose wake went unheard is
 *   seen within a cap. A Worker's firer has no cap: its looks, one per cap already, stand in.
 *
 * Passes never overlap: what asks for one while one runs makes one more after it.
 */
import type { Clock } from "../worker/clock";
import type { WakeableSleep } from "../worker/wakeable-sleep";
import { planFire } from "./fire-plan";
import type { FirePlan } from "./fire-plan";
import type { StoredSchedule } from "./stored-schedule";

/** The queue's schedules as one read found them. */
export interface ScheduleRead {
  /** The server's time of the read, epoch ms. */
  nowMs: number;
  schedules: StoredSchedule[];
}

/** What one fire call did. */
export interface FireOutcome {
  /**
   * `fired`: it wrote (messages sent, slots counted missed, or the next slot settled); `skipped`:
   * `overlap: "skip"` held the slots back; `done`: another process handled them first; `stale`: the
   * definition changed since the read; `early`: a slot is not due yet on the server's clock.
   */
  status: "fired" | "skipped" | "done" | "stale" | "early";
  /** The schedule's next slot as stored now (-1: none, it ended). */
  next: number;
  /** The messages it sent, with their slots. */
  sent: ReadonlyArray<{ slot: number; id: string }>;
}

/** The firer's way to its queue (schedule-store.ts binds it to Redis; tests may pass a fake). */
export interface ScheduleStore {
  /** The queue's schedules; null when the queue does not exist. */
  read(): Promise<ScheduleRead | null>;
  /** Carries out `plan` for `stored` (one fire script call). */
  fire(stored: StoredSchedule, plan: FirePlan): Promise<FireOutcome>;
}

/** What a firer tells of its work. */
export interface FirerReports {
  /** A message sent for a slot. */
  fired?(fired: { name: string; slot: number; id: string }): void;
  /** Slots not sent: missed (the catch-up policy) or held back by `overlap: "skip"`. */
  skipped?(skipped: { name: string; count: number; reason: "missed" | "overlap" }): void;
  /** A pass that failed (it is tried again after a back-off), or a schedule the planner refused. */
  error(error: unknown): void;
}

export interface FirerOptions {
  /** At least one pass per this many ms; none: only the timer to the next slot and the calls above. */
  capMs?: number;
}

/** The first back-off after a failed pass; it doubles up to the longest. */
const FIRST_BACKOFF_MS = 100;
const LONGEST_BACKOFF_MS = 15_000;

/** How many passes a row of `stale` answers (upserts racing the pass) may cause at once. */
const STALE_REREADS = 3;
/** Then the wait before the next pass. */
const STALE_RETRY_MS = 1_000;
/**
 * The least wait after a fire the server found early (its clock behind the one the plan was read
 * with: a failover to a server whose clock lags), so the firer does not spin until it catches up.
 */
const EARLY_RETRY_MS = 100;

export class ScheduleFirer {
  private timer: WakeableSleep | undefined;
  private passing: Promise<void> | undefined;
  /** Something asked for a pass while one ran. */
  private passAgain = false;
  private stopped = false;
  private started = false;
  private failures = 0;
  private staleRereads = 0;

  constructor(
    private readonly store: ScheduleStore,
    private readonly clock: Clock,
    private readonly reports: FirerReports,
    private readonly options: FirerOptions = {},
  ) {}

  /**
   * Makes the first pass now; resolves once it is over (fired, or failed and reported: it is then
   * tried again after a back-off). Again, or after stop(), does nothing.
   */
  start(): Promise<void> {
    if (this.started || this.stopped) return Promise.resolve();
    this.started = true;
    this.requestPass();
    return this.passing ?? Promise.resolve();
  }

  /** A definition changed: a pass now. */
  refresh(): void {
    if (this.started) this.requestPass();
  }

  /**
   * A look read the queue's earliest next slot: `ms` from now (0: due now, or not settled yet), or
   * undefined when no schedule is active. Re-arms the timer; a pass now for 0.
   */
  noteDue(ms: number | undefined): void {
    if (!this.started || this.stopped) return;
    if (ms === 0) return this.requestPass();
    // A pass running arms its own timer from a read at least as fresh.
    if (this.passing) return;
    this.arm(ms === undefined ? this.options.capMs : Math.min(ms, this.options.capMs ?? ms));
  }

  /** Stops its timer; resolves once a pass running has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.wake();
    this.timer = undefined;
    await this.passing;
  }

  private requestPass(): void {
    if (this.stopped) return;
    if (this.passing) {
      this.passAgain = true;
      return;
    }
    this.timer?.wake();
    this.timer = undefined;
    this.passing = this.runPasses().finally(() => (this.passing = undefined));
  }

  private async runPasses(): Promise<void> {
    do {
      this.passAgain = false;
      const waitMs = await this.passOrBackOff();
      if (this.stopped) return;
      if (!this.passAgain) this.arm(waitMs);
    } while (this.passAgain && !this.stopped);
  }

  /** One pass; the ms until the next (undefined: none planned), or the back-off after a failure. */
  private async passOrBackOff(): Promise<number | undefined> {
    try {
      const waitMs = await this.pass();
      this.failures = 0;
      return waitMs;
    } catch (error) {
      if (this.stopped) return undefined;
      this.reports.error(error);
      this.failures += 1;
      return Math.min(FIRST_BACKOFF_MS * 2 ** Math.min(this.failures - 1, 20), LONGEST_BACKOFF_MS);
    }
  }

  /** Reads, fires what is due, and returns the ms until the earliest next slot (within the cap). */
  private async pass(): Promise<number | undefined> {
    const read = await this.store.read();
    const readAt = this.clock.now();
    const { capMs } = this.options;
    if (read === null) return capMs;
    let earliest: number | undefined;
    let stale = false;
    for (const stored of read.schedules) {
      if (this.stopped) return undefined;
      const next = await this.fireDue(stored, read.nowMs);
      if (next === "stale") stale = true;
      else if (next !== undefined && next > 0 && (earliest === undefined || next < earliest)) earliest = next;
    }
    // An upsert between the read and a fire: read again at once, a few times at most, then soon.
    if (stale && this.staleRereads < STALE_REREADS) {
      this.staleRereads += 1;
      this.passAgain = true;
    } else this.staleRereads = 0;
    if (stale) earliest = Math.min(earliest ?? Infinity, read.nowMs + STALE_RETRY_MS);
    if (earliest === undefined) return capMs;
    // Server-relative: the slot's distance from the read's server time, less what passed here since.
    const waitMs = Math.max(0, earliest - read.nowMs - (this.clock.now() - readAt));
    return capMs === undefined ? waitMs : Math.min(waitMs, capMs);
  }

  /** Fires one schedule if due: its next slot afterwards (undefined: none, or paused), or "stale". */
  private async fireDue(stored: StoredSchedule, nowMs: number): Promise<number | "stale" | undefined> {
    if (stored.paused) return undefined;
    let plan: FirePlan | undefined;
    try {
      plan = planFire(stored, nowMs);
    } catch (error) {
      // A cron schedule in a process without croner, say: the others still fire.
      this.reports.error(error);
      return undefined;
    }
    if (plan === undefined) return stored.next;
    const outcome = await this.store.fire(stored, plan);
    if (outcome.status === "stale") return "stale";
    if (outcome.status === "early") return Math.max(outcome.next, nowMs + EARLY_RETRY_MS);
    this.report(stored.name, plan, outcome);
    return outcome.next;
  }

  private report(name: string, plan: FirePlan, outcome: FireOutcome): void {
    for (const { slot, id } of outcome.sent) this.reports.fired?.({ name, slot, id });
    if (outcome.status === "fired" && plan.missed > 0) this.reports.skipped?.({ name, count: plan.missed, reason: "missed" });
    if (outcome.status === "skipped") this.reports.skipped?.({ name, count: plan.slots.length, reason: "overlap" });
  }

  /** Arms the timer for a pass `ms` from now (none: disarmed). */
  private arm(ms: number | undefined): void {
    this.timer?.wake();
    this.timer = undefined;
    if (ms === undefined || this.stopped) return;
    const timer = this.clock.sleep(ms);
    this.timer = timer;
    void timer.done.then((reason) => {
      if (reason === "timeout" && this.timer === timer) {
        this.timer = undefined;
        this.requestPass();
      }
    });
  }
}
