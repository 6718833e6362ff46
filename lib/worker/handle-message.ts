/**
 * One received message, from handler to outcome: the message is kept hidden while its handler
 * runs; a handler that resolves gets its message deleted; one that throws gets the retry policy:
 * the message is hidden for the backoff, or it stops (moved to the dead-letter queue, or deleted).
 * A RateLimitError is no failure: the message is bounced back until the block it asks for ends.
 * A handler that ends after the worker has stopped gets nothing done: its message is abandoned.
 * Every call carries the delivery's receipt (`message.rc`): a message deleted meanwhile, or
 * received again by another consumer, answers 0 and is `cancelled`, never an error. Noticed while
 * the handler runs (a visibility extension answered 0), the cancel aborts the handler's signal
 * and the worker does nothing more with the message.
 */
import type { QueueMessage } from "../types";
import type { AbandonedOutcome } from "./worker-events";
import { observeHandling, observing } from "./worker-telemetry";
import type { Handling } from "./handling-needs";
import { isRateLimitError } from "../retry/rate-limit-error";
import type { RateLimitError } from "../retry/rate-limit-error";

export type { Handling } from "./handling-needs";

/**
 * Runs the handler on `message` (received with visibility timeout `vt` seconds) and settles the
 * message (`acknowledged`: see handle); observed (a process span, the outcome counted) while the instance records or traces.
 * Not async itself: unobserved, the handling's steps are exactly those of {@link handle}.
 */
export function handleMessage(message: QueueMessage, vt: number, handling: Handling, acknowledged?: () => void): Promise<void> {
  if (observing(handling.telemetry)) {
    const observed = observeHandling(message, handling, handling.telemetry);
    return handle(message, vt, observed.handling, acknowledged).finally(() => observed.settled());
  }
  return handle(message, vt, handling, acknowledged);
}

/** `acknowledged` is called once a resolved handler's delete is queued (it may ride on the next receive). */
async function handle(message: QueueMessage, vt: number, handling: Handling, acknowledged?: () => void): Promise<void> {
  const { options, reporter } = handling;
  const context = handling.signals.context(message);
  const extension = handling.extender.keepHidden(message.id, vt, message.rc, context);
  // Inline, not a helper: one more async step would move `failed` after the loop's next sleep.
  let ended: AbandonedOutcome;
  try {
    await options.handler(message, context);
    ended = { outcome: "resolved" };
  } catch (error) {
    ended = { outcome: "threw", error };
  }
  extension.stop();
  context.end();
  if (handling.hasStopped()) {
    // A stopped worker sends nothing (its connection may be closed): the message reappears after its vt.
    reporter.abandoned(message, ended);
    return;
  }
  // Cancelled while it ran (told then): the message is gone or another consumer's; nothing to settle.
  if (context.cancelled) return;
  if (ended.outcome === "threw" && isRateLimitError(ended.error)) {
    await afterRateLimit(message, ended.error, extension.hiddenUntil(), handling);
    return;
  }
  if (ended.outcome === "threw") {
    reporter.stats.failed += 1;
    reporter.tell("failed", message, ended.error);
    await afterFailure(message, ended.error, extension.hiddenUntil(), handling);
    return;
  }
  const deleted = handling.acknowledge(message.id, message.rc);
  acknowledged?.();
  try {
    if ((await deleted) === 0) return reporter.cancelled(message);
    reporter.stats.handled += 1;
    reporter.tell("handled", message);
  } catch (error) {
    // The message reappears after vt and is handled again: duplicated, never lost.
    reporter.error(error);
  }
}

/**
 * Applies the retry policy to a failure. If a Redis call here fails, the message simply
 * reappears when its current visibility timeout ends and is judged again: nothing is lost.
 * A message no longer in the queue (deleted meanwhile, by its handler or anyone else), or received
 * again by another consumer, was not retried, moved or deleted by this worker: no `retry`,
 * `deadLettered` or `dropped` event; it is `cancelled`.
 */
async function afterFailure(message: QueueMessage, error: unknown, hiddenUntil: number, handling: Handling): Promise<void> {
  const { options, queue, reporter } = handling;
  const { qname, retry, onStop } = options;
  const decision = retry.decide(error, message.rc);
  try {
    if (decision.action === "retry") {
      // Released: the message is let go for its backoff, so its concurrency lease ends now.
      if ((await queue.hide(message.id, decision.delayMs, message.rc, true)) === 0) return reporter.cancelled(message);
      reporter.stats.retried += 1;
      handling.dueAgainAt(handling.clock.now() + decision.delayMs);
      reporter.tell("retry", message, { delayMs: decision.delayMs, error });
      return;
    }
    if (onStop === "delete") {
      if ((await queue.remove(message.id, message.rc)) === 0) return reporter.cancelled(message);
      reporter.stats.dropped += 1;
      reporter.tell("dropped", message, { reason: decision.reason, error });
      reporter.tell("stop", message, { reason: decision.reason, error, action: "deleted" });
      return;
    }
    const why = { source: qname, deliveries: message.rc, reason: decision.reason, error: errorText(error) };
    if (!(await queue.moveToDlq(message, why))) return reporter.cancelled(message);
    reporter.stats.deadLettered += 1;
    reporter.tell("deadLettered", message, { reason: decision.reason, error });
    reporter.tell("stop", message, { reason: decision.reason, error, action: "deadLettered" });
  } catch (redisError) {
    reporter.error(redisError);
    handling.dueAgainAt(hiddenUntil);
  }
}

/**
 * A handler's RateLimitError: one call blocks the queue's receives for its `ms`, hides the message
 * until the block ends and gives its delivery back. If the call fails, the message reappears when
 * its visibility timeout ends, as after any failure here: nothing is lost.
 */
async function afterRateLimit(message: QueueMessage, error: RateLimitError, hiddenUntil: number, handling: Handling): Promise<void> {
  const { queue, reporter } = handling;
  try {
    const ms = await queue.rateLimitBounce(message.id, error.ms, message.rc);
    if (ms < 0) return reporter.cancelled(message);
    reporter.stats.rateLimited += 1;
    handling.dueAgainAt(handling.clock.now() + ms);
    reporter.tell("rateLimited", message, { ms, error });
  } catch (redisError) {
    reporter.error(redisError);
    handling.dueAgainAt(hiddenUntil);
  }
}

/** The last error, as stored with a dead-lettered message (bounded: it lives in Redis). */
function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 1000 ? `${text.slice(0, 1000)}...` : text;
}
