/**
 * What a Worker emits: one map from event name to payload, shared by the Worker (which declares
 * its typed `on`/`emit` with it) and the loop that does the emitting.
 */
import type { QueueMessage } from "../types";
import type { StopReason } from "../retry/retry-policy";
import type { PoisonError } from "../retry/poison-error";
import type { RateLimitError } from "../retry/rate-limit-error";
import type { ReceiveBlock } from "../operations/receive-block";
import type { MessageCancelledError } from "./message-cancelled-error";

/** Why a failed message stopped being retried: the payload of `deadLettered` and `dropped`. */
export interface GaveUpInfo {
  /** `"poison"`: the handler threw a {@link PoisonError}; `"exhausted"`: no deliveries left. */
  reason: StopReason;
  /** What the handler threw the last time. */
  error: unknown;
}

/**
 * What the handler of a message abandoned at stop did when it ended at last: the payload of
 * `abandoned`. `"resolved"`: it returned; `"threw"`: it threw (or rejected with) `error`.
 */
export type AbandonedOutcome =
  | {
      /** The handler returned. */
      outcome: "resolved";
    }
  | {
      /** The handler threw or rejected. */
      outcome: "threw";
      /** What it threw. */
      error: unknown;
    };

/** The events a Worker emits. */
export interface WorkerEvents {
  /** A receive returned: how many messages, and (when fewer than asked) ms until the next is due, null if empty. */
  receive: [received: number, nextDueMs: number | null | undefined];
  /**
   * A read-only look returned (made instead of a receive after an idle sleep that nothing cut
   * short): ms until the next message is due (0: one is due, a receive follows), null if empty;
   * `beat`: whether it carried the Worker's heartbeat (a look half a cap or more after the last
   * beat does, so every look of a steadily idle Worker does; the first after a busy spell may not).
   */
  look: [nextDueMs: number | null, beat: boolean];
  /** A handler resolved and its message was deleted. */
  handled: [message: QueueMessage];
  /**
   * A handler threw; `retry`, `deadLettered` or `dropped` follows with what was decided (none if
   * the message is gone from the queue).
   */
  failed: [message: QueueMessage, error: unknown];
  /** A failed message will be delivered again in `delayMs`. */
  retry: [
    message: QueueMessage,
    info: {
      /** Milliseconds until the message is delivered again (the retry policy's backoff). */
      delayMs: number;
      /** What the handler threw. */
      error: unknown;
    },
  ];
  /**
   * The handler threw a {@link RateLimitError}: the queue's receives are blocked for its `ms` (on
   * every process) and the message is hidden until `info.ms` from now, its delivery given back
   * (`rc` unchanged). Not a failure: no `failed` or `retry` event, never dead-lettered. The worker
   * then sleeps as rate-limited.
   */
  rateLimited: [
    message: QueueMessage,
    info: {
      /** Milliseconds until the message is visible again. */
      ms: number;
      /** What the handler threw. */
      error: RateLimitError;
    },
  ];
  /**
   * A poll was held back (a pause, or the queue's rate limit or block): the worker takes nothing
   * and sleeps until the block's end, at most maxIdleSleepMs; only a control wake (a resume) ends
   * that sleep sooner. Running handlers go on, and their deletes go out.
   */
  heldBack: [block: ReceiveBlock];
  /**
   * The message was cancelled while this worker held it: deleted by anyone, in any process (a
   * `deleteMessageAsync` is the cancel), or received again by another consumer after its vt lapsed
   * (its receipt no longer holds). Noticed at the next visibility extension while the handler
   * runs (at most half a vt after the cancel: its `signal` then aborts with a
   * {@link MessageCancelledError}), or by the delete, retry, bounce or move after the handler ended
   * (answered 0). The worker does nothing more with the message; no `handled`, `failed` after the
   * notice, or `error`. Counted in `worker.counters.cancelled`.
   */
  cancelled: [message: QueueMessage];
  /**
   * A failed message stopped being retried (`poison`: the handler said so; `exhausted`: no
   * deliveries left) and was moved to the dead-letter queue.
   */
  deadLettered: [message: QueueMessage, info: GaveUpInfo];
  /** A failed message stopped being retried and was deleted (`onStop: "delete"`). */
  dropped: [message: QueueMessage, info: GaveUpInfo];
  /**
   * Deprecated, and about a message, not the worker stopping (that is `stopped`, after `stop()`):
   * a failed message that the retry policy stopped retrying, emitted right after `deadLettered`
   * or `dropped`, with `action` telling which.
   *
   * @deprecated Listen to `deadLettered` and `dropped` instead; `stop` will be removed in the
   * next minor release.
   */
  stop: [
    message: QueueMessage,
    info: GaveUpInfo & {
      /** Where the message went: the dead-letter queue, or deleted (`onStop: "delete"`). */
      action: "deadLettered" | "deleted";
    },
  ];
  /** The worker goes to sleep for `ms`. */
  sleep: [ms: number];
  /** A sleep ended early. */
  wake: [reason: "woken" | "aborted"];
  /**
   * A Redis error (receive, delete, extend), or an exception thrown by a listener of another
   * event; the worker carries on. Emitted only when someone listens; otherwise each error name is
   * shown once as a process warning (code RSMQ_NEXT_WORKER_ERROR). A refused wake subscription
   * (`noPermission`: the user lacks the queue's channel) is reported once, not on every retry; the
   * worker keeps trying (1 s apart, doubling up to 30 s).
   */
  error: [error: Error];
  /**
   * The worker stopped: stop() finished (not to be confused with the deprecated `stop` event,
   * which is about a message). Nothing follows it but `abandoned`: a stopped worker sends nothing to Redis
   * and emits no other event (the reply to a call sent before, such as the delete of a handler
   * that ended just in time, is not told).
   */
  stopped: [];
  /**
   * A handler that was still running when stop() gave up on it (after `stopTimeoutMs`) has ended,
   * after `stopped`, as `info.outcome` says. The worker did nothing with its message: not deleted,
   * not retried, not dead-lettered; it reappears when its visibility timeout ends and is delivered
   * again. Emitted once per such message, when its handler ends (never, for a handler that never
   * ends); counted in `worker.counters.abandoned`. The only event after `stopped`.
   */
  abandoned: [message: QueueMessage, info: AbandonedOutcome];
}
