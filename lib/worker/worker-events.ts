/**
 * What a Worker emits: one map from event name to payload, shared by the Worker (which declares
 * its typed `on`/`emit` with it) and the loop that does the emitting.
 */
import type { QueueMessage } from "../types";
import type { StopReason } from "../retry/retry-policy";
import type { PoisonError } from "../retry/poison-error";

/** The events a Worker emits. */
export interface WorkerEvents {
  /** A receive returned: how many messages, and (when fewer than asked) ms until the next is due, null if empty. */
  receive: [received: number, nextDueMs: number | null | undefined];
  /**
   * A read-only look returned (made instead of a receive after an idle sleep that nothing cut
   * short): ms until the next message is due (0: one is due, a receive follows), null if empty.
   */
  look: [nextDueMs: number | null];
  /** A handler resolved and its message was deleted. */
  handled: [message: QueueMessage];
  /** A handler threw; `retry` or `stop` follows with what was decided (neither if the message is gone from the queue). */
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
   * A failed message stopped being retried: `poison` (the handler said so) or `exhausted` (no
   * deliveries left); it was moved to the dead-letter queue, or deleted.
   */
  stop: [
    message: QueueMessage,
    info: {
      /** `"poison"`: the handler threw a {@link PoisonError}; `"exhausted"`: no deliveries left. */
      reason: StopReason;
      /** What the handler threw the last time. */
      error: unknown;
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
  /** stop() finished. */
  stopped: [];
}
