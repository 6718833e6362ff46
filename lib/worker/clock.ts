/**
 * The Worker's clock: what time it is, and a sleep that a wake or a stop cuts short. The loop,
 * the visibility extender and the wake subscription read time only through it, so tests drive
 * them with a fake clock; the real one is Date.now and Node's timers.
 */
import { wakeableSleep } from "./wakeable-sleep";
import type { WakeableSleep } from "./wakeable-sleep";

/** The time and the sleeps of a Worker. */
export interface Clock {
  /** Local epoch ms. */
  now(): number;
  /** A sleep of `ms` that its wake() or shortenTo(), or `signal`, can end early. */
  sleep(ms: number, signal?: AbortSignal): WakeableSleep;
}

/** The real clock: Date.now, and wakeableSleep on Node's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => wakeableSleep(ms, signal),
};
