/**
 * When a Worker's subscription to its queue's realtime channel is refused or fails: how long it
 * waits before trying again, and what it reports.
 */
import { isPermissionRefusal, permissionError } from "../permission-errors";

/** The wait before the first new try after a refused or failed wake subscription. */
export const WAKE_RETRY_FIRST_MS = 1_000;
/** The longest wait between tries: the wait doubles from WAKE_RETRY_FIRST_MS up to this. */
export const WAKE_RETRY_MAX_MS = 30_000;

/** The wait before try `attempt + 1` (attempt 0 is the first subscription). */
export function wakeRetryDelayMs(attempt: number): number {
  return Math.min(WAKE_RETRY_FIRST_MS * 2 ** Math.min(attempt, 30), WAKE_RETRY_MAX_MS);
}

/** The error a Worker reports for a failed wake subscription: what failed, why, and what the worker does meanwhile. */
export function wakeSubscriptionError(error: unknown, channel: string, maxIdleSleepMs: number): Error {
  const meanwhile =
    ` The worker subscribes again with backoff (every ${WAKE_RETRY_MAX_MS / 1000} s at most) and meanwhile ` +
    `polls at least every ${maxIdleSleepMs} ms (maxIdleSleepMs).`;
  if (isPermissionRefusal(error)) {
    const named = permissionError(error, { operation: `The Worker's wake subscription to ${channel}`, channel }) as Error;
    named.message += meanwhile;
    return named;
  }
  const text = error instanceof Error ? error.message : String(error);
  const reported = new Error(`The Worker's wake subscription to ${channel} failed: ${text}.${meanwhile}`);
  if (error instanceof Error) reported.name = error.name;
  return reported;
}
