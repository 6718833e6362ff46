/**
 * When a Worker's subscription to its queue's realtime channel is refused or fails: how long it
 * waits before trying again, what it reports, and the tries themselves. Meanwhile the worker still
 * polls at maxIdleSleepMs.
 */
import type { ReportOnce } from "../errors/report-once";
import { isPermissionRefusal } from "../errors/permission-errors";
import { explainRefusal } from "../errors/refusals";
import type { Clock } from "./clock";

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
    const named = explainRefusal(error, { operation: `The Worker's wake subscription to ${channel}`, channel });
    named.message += meanwhile;
    return named;
  }
  const text = error instanceof Error ? error.message : String(error);
  const reported = new Error(`The Worker's wake subscription to ${channel} failed: ${text}.${meanwhile}`);
  if (error instanceof Error) reported.name = error.name;
  return reported;
}

/** What {@link keepSubscribing} needs. */
export interface WakeSubscription {
  channel: string;
  /** One try; resolves with the unsubscribe. */
  subscribe(): Promise<() => unknown>;
  clock: Clock;
  /** Ends the tries. */
  signal: AbortSignal;
  problems: ReportOnce;
  maxIdleSleepMs: number;
  /** Told once, when the first try succeeded (true) or failed (false). */
  firstTry?(succeeded: boolean): void;
}

/**
 * Subscribes, and when that is refused (an ACL user without the channel) or fails, tries again
 * after WAKE_RETRY_FIRST_MS, doubling up to WAKE_RETRY_MAX_MS, until it works or the signal
 * aborts. The failure is reported once (again only after a success). Resolves with the
 * unsubscribe, or undefined when the signal aborted first (then nothing stays subscribed).
 */
export async function keepSubscribing(wakes: WakeSubscription): Promise<(() => unknown) | undefined> {
  const { channel, clock, signal, problems } = wakes;
  const problem = `wakes ${channel}`;
  for (let attempt = 0; !signal.aborted; attempt++) {
    try {
      const unsubscribe = await wakes.subscribe();
      if (signal.aborted) return void unsubscribe();
      problems.resolved(problem);
      if (attempt === 0) wakes.firstTry?.(true);
      return unsubscribe;
    } catch (error) {
      // Failed after the stop (quitAsync closes the subscriber once its workers stopped): the stop
      // ended it, which is nothing to report.
      if (signal.aborted) return undefined;
      if (attempt === 0) wakes.firstTry?.(false);
      problems.report(problem, wakeSubscriptionError(error, channel, wakes.maxIdleSleepMs));
      await clock.sleep(wakeRetryDelayMs(attempt), signal).done;
    }
  }
  return undefined;
}
