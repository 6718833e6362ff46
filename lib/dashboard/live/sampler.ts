/**
 * One reading of every queue, shared: the sampler reads while at least one live-update stream is
 * open (one reading per interval, however many tabs), and not at all when none is. A request
 * without a stream gets the latest reading while it is fresh, or shares the one under way, so
 * polling tabs do not multiply the cost either.
 *
 * A reading that takes too long (a server that hangs, a link gone silent: the call itself waits up
 * to the instance's commandTimeoutMs) is told as a failure as soon as it is late, and again every
 * interval while it stays late, so a page never shows the last figures as live while Redis does
 * not answer; the reading's own outcome follows when it comes. Telling costs Redis nothing.
 */
import type { RedisHealth } from "../api-types";
import type { Reading } from "../../queue-state/read-shapes";

/** What a stream is told after every reading: the latest one that succeeded, and whether this one did. */
export interface SamplerState {
  reading: Reading | undefined;
  health: RedisHealth;
}

export type SamplerListener = (state: SamplerState) => void;

export interface SamplerOptions {
  /** Ms between the end of one reading and the start of the next while a stream is open. */
  intervalMs: number;
  /** Local clock, for how fresh the latest reading is. @default Date.now */
  now?: () => number;
  /** Runs `run` after `ms`; returns what cancels it. @default an unref'd setTimeout */
  after?: (ms: number, run: () => void) => () => void;
  /** Ms a reading may take before it is told as a failure. @default the larger of 2 × intervalMs and 3000 */
  lateAfterMs?: number;
}

/** The timer holds nothing open: the streams' sockets do, and a host app's exit is its own. */
function unrefTimeout(ms: number, run: () => void): () => void {
  const timer = setTimeout(run, ms).unref();
  return () => clearTimeout(timer);
}

export class Sampler {
  private readonly listeners = new Set<SamplerListener>();
  private state: SamplerState = { reading: undefined, health: { ok: true } };
  /** When the latest reading (or failure) was taken, local ms. */
  private takenAt = -Infinity;
  private inFlight: Promise<SamplerState> | undefined;
  /** Cancels the next tick, while one is scheduled. */
  private cancelTick: (() => void) | undefined;
  private closed = false;
  private readonly now: () => number;
  private readonly after: (ms: number, run: () => void) => () => void;
  private readonly lateAfterMs: number;
  /** Resolves the requests waiting on the reading under way once it is late (they get the late state). */
  private lateNotice: Promise<SamplerState> | undefined;

  constructor(
    private readonly read: () => Promise<Reading>,
    private readonly options: SamplerOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.after = options.after ?? unrefTimeout;
    this.lateAfterMs = options.lateAfterMs ?? Math.max(2 * options.intervalMs, 3000);
  }

  /** The latest state the listeners were told of (a new object after every reading, and every late notice). */
  get current(): SamplerState {
    return this.state;
  }

  /** Live-update streams open now. */
  get streams(): number {
    return this.listeners.size;
  }

  /**
   * Calls `listener` after every reading from now on (the first one right away, or the latest if
   * fresh), until the returned function is called. The first subscriber starts the readings; the
   * last one to leave stops them.
   */
  subscribe(listener: SamplerListener): () => void {
    if (this.closed) throw new Error("rsmq-next: the dashboard is closed");
    this.listeners.add(listener);
    if (this.listeners.size === 1) void this.tick();
    else if (this.state.reading || !this.state.health.ok) listener(this.state);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopTicking();
    };
  }

  /** The latest reading if younger than the interval, else a new one (shared with any under way). */
  latest(): Promise<SamplerState> {
    if (this.inFlight) return Promise.race([this.inFlight, this.lateNotice ?? this.inFlight]);
    if (this.now() - this.takenAt < this.options.intervalMs) return Promise.resolve(this.state);
    return this.takeReading();
  }

  /** Stops reading and drops every listener; later subscribes throw. */
  close(): void {
    this.closed = true;
    this.listeners.clear();
    this.stopTicking();
  }

  private takeReading(): Promise<SamplerState> {
    const startedAt = this.now();
    const taking = this.read().then(
      (reading): SamplerState => ({ reading, health: { ok: true } }),
      (error: unknown): SamplerState => ({
        reading: this.state.reading,
        health: {
          ok: false,
          error: error instanceof Error ? error.message : String(error),
          since: this.state.health.ok ? this.now() : this.state.health.since,
        },
      }),
    );
    let tellLate: (state: SamplerState) => void = () => undefined;
    this.lateNotice = new Promise((resolve) => (tellLate = resolve));
    let cancelLate = this.after(this.lateAfterMs, () => late());
    // Told now, and again every interval while the reading stays late.
    const late = (): void => {
      const waited = this.now() - startedAt;
      this.state = {
        reading: this.state.reading,
        health: {
          ok: false,
          error: `Redis has not answered for ${Math.round(waited / 1000)} s`,
          since: this.state.health.ok ? startedAt : this.state.health.since,
        },
      };
      tellLate(this.state);
      if (this.closed) return;
      for (const listener of this.listeners) listener(this.state);
      cancelLate = this.after(this.options.intervalMs, () => late());
    };
    this.inFlight = taking.then((state) => {
      cancelLate();
      this.lateNotice = undefined;
      this.state = state;
      this.takenAt = this.now();
      this.inFlight = undefined;
      return state;
    });
    return this.inFlight;
  }

  private async tick(): Promise<void> {
    this.cancelTick = undefined;
    const state = await (this.inFlight ?? this.takeReading());
    if (this.closed || this.listeners.size === 0) return;
    for (const listener of this.listeners) listener(state);
    this.cancelTick ??= this.after(this.options.intervalMs, () => void this.tick());
  }

  private stopTicking(): void {
    this.cancelTick?.();
    this.cancelTick = undefined;
  }
}
