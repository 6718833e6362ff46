import type { WakeReason } from "./wakeable-sleep";

/**
 * How long the worker sleeps, and how it polls after a sleep, as pure functions. After consecutive failed receives: 100 ms doubling
 * to 15 s, fixed on purpose, so an outage neither hammers Redis nor depends on the idle settings;
 * a wake cuts a back-off short, down to 100 ms.
 */
export const FIRST_RETRY_MS = 100;
export const MAX_RETRY_MS = 15_000;

/**
 * The shortest back-off a wake leaves: a wake (a send, a realtime publish) ends a back-off, as the
 * error's cause (a queue not created yet) may be gone, but no sooner than this after the failure,
 * so a flood of wakes against an error that stays costs one failing call per 100 ms at most.
 */
export const BACK_OFF_WAKE_FLOOR_MS = FIRST_RETRY_MS;

/** The ms left of a back-off that a wake ends `elapsedMs` after the failure (0: it ends now). */
export function backOffLeftAfterWake(elapsedMs: number): number {
  return Math.max(0, BACK_OFF_WAKE_FLOOR_MS - elapsedMs);
}

/** The wait after the `failures`-th consecutive failure (1 and up). */
export function receiveRetryDelay(failures: number): number {
  // Capped before exponentiation so hundreds of failures neither overflow nor wrap.
  const doublings = Math.min(Math.max(failures, 1) - 1, 20);
  return Math.min(FIRST_RETRY_MS * 2 ** doublings, MAX_RETRY_MS);
}

/** The idle sleep: the time until the next message is due, held between the floor and the cap. */
export function idleSleep(nextDueMs: number | null, minMs: number, maxMs: number): number {
  if (nextDueMs === null) return maxMs;
  return Math.min(Math.max(nextDueMs, minMs), maxMs);
}

/** What the worker knows when it goes idle, for {@link planIdleSleep}. */
export interface IdleSleepInput {
  /** The last poll's ms until the next message is due (null: empty queue). */
  nextDueMs: number | null;
  minMs: number;
  maxMs: number;
  /** Local epoch ms at which a message this worker let go becomes due again, if it knows of one. */
  knownDueAt: number | undefined;
  /** Local epoch ms now. */
  now: number;
}

/** An idle sleep to take (0: none, poll again at once), and the known due time to keep. */
export interface IdleSleepPlan {
  ms: number;
  knownDueAt: number | undefined;
}

/**
 * The idle sleep ({@link idleSleep}), shortened to a due time the worker knows of (a message it
 * let go: a retry it scheduled), but never below the floor. A known due time that has passed is
 * dropped and changes nothing: the poll just made already saw that message (or found it taken), so
 * the sleep its reply gave is the right one; sleeping 0 here would only repeat that poll.
 */
export function planIdleSleep(input: IdleSleepInput): IdleSleepPlan {
  const { nextDueMs, minMs, maxMs, knownDueAt, now } = input;
  const ms = idleSleep(nextDueMs, minMs, maxMs);
  if (knownDueAt === undefined) return { ms, knownDueAt };
  const untilKnown = knownDueAt - now;
  if (untilKnown <= 0) return { ms, knownDueAt: undefined };
  return { ms: Math.max(Math.min(ms, untilKnown), minMs), knownDueAt };
}

/** How an idle sleep went, for {@link looksFirst}. */
export interface IdleSleepOutcome {
  /** The last poll's ms until the next message was due (null: empty queue). */
  nextDueMs: number | null;
  /** How long the sleep was planned for, and the cap it was held to. */
  plannedMs: number;
  maxMs: number;
  reason: WakeReason;
  /** Whether a due time the worker knew of (a message it let go) has been reached. */
  knownDueReached: boolean;
}

/**
 * Whether the next poll only looks (read-only) before it receives. Only after a blind sleep: it ran
 * its full length at the cap, no due time fell inside it, and no wake or known due time cut it
 * short. Nothing then says a message is due, and a look answers on a full server and during a write
 * pause, where a receive would wait. After any other sleep a message is likely due: receive at once.
 */
export function looksFirst(sleep: IdleSleepOutcome): boolean {
  const noDueWithin = sleep.nextDueMs === null || sleep.nextDueMs > sleep.maxMs;
  return noDueWithin && sleep.plannedMs >= sleep.maxMs && sleep.reason === "timeout" && !sleep.knownDueReached;
}
