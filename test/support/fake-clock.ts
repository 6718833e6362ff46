/**
 * A clock for driving the Worker's loop without waiting: time moves only when a test advances it,
 * and every sleep started is recorded, so a test reads exactly what the loop slept and why it
 * woke. Its sleeps behave as wakeableSleep's do (wake, shortenTo, AbortSignal, 0 ends at once).
 */
import type { Clock } from "../../lib/worker/clock";
import type { WakeReason, WakeableSleep } from "../../lib/worker/wakeable-sleep";

export interface FakeSleep extends WakeableSleep {
  /** The length asked for. */
  readonly ms: number;
  readonly startedAt: number;
  /** When it ends on its own (moved by shortenTo). */
  readonly endsAt: number;
  /** Why it ended; undefined while it runs. */
  readonly reason: WakeReason | undefined;
}

/** Lets every promise chain that is ready run (the fake queue's replies and the fake clock's sleeps settle in microtasks). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** More sleeps than any test needs in one advance(): beyond it the code under test is spinning. */
const MAX_SLEEPS_PER_ADVANCE = 10_000;

export class FakeClock implements Clock {
  /** Every sleep started, in order. */
  readonly sleeps: FakeSleep[] = [];
  private time: number;
  /** Ends a sleep on its timer. */
  private readonly expire = new WeakMap<FakeSleep, () => void>();

  constructor(start = 1_700_000_000_000) {
    this.time = start;
  }

  now = (): number => this.time;

  sleep(ms: number, signal?: AbortSignal): WakeableSleep {
    let finish: (reason: WakeReason) => void = () => undefined;
    const done = new Promise<WakeReason>((resolve) => (finish = resolve));
    const state = {
      ms,
      startedAt: this.time,
      endsAt: this.time + Math.max(0, ms),
      reason: undefined as WakeReason | undefined,
      done,
      wake: () => end("woken"),
      shortenTo: (by: number): void => {
        if (state.reason !== undefined) return;
        const candidate = this.time + Math.max(0, by);
        if (candidate >= state.endsAt) return;
        state.endsAt = candidate;
        if (state.endsAt <= this.time) end("timeout");
      },
    };
    const onAbort = (): void => end("aborted");
    function end(reason: WakeReason): void {
      if (state.reason !== undefined) return;
      state.reason = reason;
      signal?.removeEventListener("abort", onAbort);
      finish(reason);
    }
    this.sleeps.push(state);
    this.expire.set(state, () => end("timeout"));
    if (signal?.aborted) end("aborted");
    else {
      signal?.addEventListener("abort", onAbort, { once: true });
      if (state.endsAt <= this.time) end("timeout");
    }
    return state;
  }

  /** The sleeps still running. */
  get pending(): FakeSleep[] {
    return this.sleeps.filter((sleep) => sleep.reason === undefined);
  }

  /**
   * Moves time forward by `ms`: each sleep that ends by then ends at its own time, in order, and
   * what it sets going runs (and may start new sleeps, which end too if they end by then).
   */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    await settle();
    for (let ended = 0; ; ended++) {
      const next = this.pending.filter((sleep) => sleep.endsAt <= target).sort((a, b) => a.endsAt - b.endsAt)[0];
      if (!next) break;
      if (ended === MAX_SLEEPS_PER_ADVANCE) {
        const what = `over ${MAX_SLEEPS_PER_ADVANCE} sleeps ended and more keep starting (a loop that does not wait?)`;
        throw new Error(`FakeClock.advance(${ms}): ${what}`);
      }
      this.time = Math.max(this.time, next.endsAt);
      this.expire.get(next)!();
      await settle();
    }
    this.time = target;
    await settle();
  }
}
