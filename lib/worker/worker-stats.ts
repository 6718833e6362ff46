/** Counters a Worker keeps, readable as `worker.counters`. */
export interface WorkerStats {
  /** Receive calls that returned (empty or not). */
  receives: number;
  /** Receive calls that returned no message. */
  emptyReceives: number;
  /**
   * Read-only looks made instead of a receive after an idle sleep that nothing cut short (no wake,
   * no due time): a receive follows only when a message is due. They answer during a write pause.
   */
  looks: number;
  /** Messages whose handler resolved and which were deleted. */
  handled: number;
  /** Handler failures. */
  failed: number;
  /** Failures retried after a backoff. */
  retried: number;
  /**
   * Messages whose handler threw a RateLimitError: put back until the block ended, their delivery
   * not spent (the `rateLimited` event); not counted as failures.
   */
  rateLimited: number;
  /**
   * Polls (receives and looks) that a pause or the queue's rate limit held back; the worker then
   * slept until the block's end (at most maxIdleSleepMs), heeding only control wakes (a resume).
   */
  heldBack: number;
  /**
   * Messages cancelled while this worker held them: deleted by anyone (a cancel), or received
   * again by another consumer after their vt lapsed. Found by a visibility extension (the
   * handler's signal then aborts with a MessageCancelledError) or by the delete, retry or move
   * that followed the handler (answered 0); the worker did nothing more with them (the `cancelled`
   * event). Not counted as handled or failed.
   */
  cancelled: number;
  /** Messages that stopped and were moved to the dead-letter queue. */
  deadLettered: number;
  /** Messages that stopped and were deleted (`onStop: "delete"`). */
  dropped: number;
  /**
   * Messages abandoned at stop: their handler outlived `stopTimeoutMs` and ended after `stopped`
   * (the `abandoned` event); the worker left each to reappear after its visibility timeout.
   */
  abandoned: number;
  /** Sleeps started (idle sleeps and error back-offs). */
  sleeps: number;
  /** Total time spent in those sleeps, ms. */
  sleptMs: number;
  /** Visibility extensions made for long-running handlers. */
  extensions: number;
  /** Errors seen: Redis errors (receive, delete, extend) and exceptions thrown by event listeners. */
  errors: number;
}

export function createWorkerStats(): WorkerStats {
  return {
    receives: 0,
    emptyReceives: 0,
    looks: 0,
    handled: 0,
    failed: 0,
    retried: 0,
    rateLimited: 0,
    heldBack: 0,
    cancelled: 0,
    deadLettered: 0,
    dropped: 0,
    abandoned: 0,
    sleeps: 0,
    sleptMs: 0,
    extensions: 0,
    errors: 0,
  };
}
