/**
 * Why a message can sit in a dead-letter queue (the `reason` of its `<id>:dl` record), as one list:
 * redrive checks its `reason` filter against it, the command line offers it as `--reason`'s
 * choices, the dashboard groups by it, and a documentation test holds every list of reasons in the
 * docs to it (test/docs/dead-letter-reasons.test.ts).
 */
import type { StopReason } from "../retry/retry-policy";
import type { DeadLetterInfo } from "../types";

/** One of {@link DEAD_LETTER_REASONS}. */
export type DeadLetterReason = DeadLetterInfo["reason"];

// Records, so that a reason added to (or left out of) the types fails to compile here.
const EACH_REASON: Record<DeadLetterReason, true> = { poison: true, exhausted: true, expired: true };
const EACH_STOP: Record<StopReason, true> = { poison: true, exhausted: true };

/** Every reason a dead letter can carry: a Worker's two stops, then a queue's retention. */
export const DEAD_LETTER_REASONS = Object.keys(EACH_REASON) as readonly DeadLetterReason[];

/**
 * The reasons a Worker stops a message with (its retry policy), the only ones its `deadLettered`,
 * `dropped` and `stop` events carry: `expired` comes from a queue's retention, not from a Worker.
 */
export const WORKER_STOP_REASONS = Object.keys(EACH_STOP) as readonly StopReason[];

export function isDeadLetterReason(value: unknown): value is DeadLetterReason {
  return (DEAD_LETTER_REASONS as readonly unknown[]).includes(value);
}

/** `"poison", "exhausted" or "expired"`: the reasons as an error message names them. */
export function quotedReasons(): string {
  const quoted = DEAD_LETTER_REASONS.map((reason) => `"${reason}"`);
  return `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`;
}
