/** Dead letters: why a message stopped, and how to move such messages back. */

/** Why a message was dead-lettered, as stored with it. */
export interface DeadLetterInfo {
  /** The queue it came from. */
  source: string;
  /** How many times it had been delivered there. */
  deliveries: number;
  /**
   * `"poison"`: the handler declared the failure permanent; `"exhausted"`: it ran out of deliveries;
   * `"expired"`: it outlived its queue's retention and the queue has an `expireTo` (docs/retention.md).
   */
  reason: "poison" | "exhausted" | "expired";
  /** The last error's message. */
  error: string;
  /** When it was dead-lettered, epoch ms (server clock). */
  at: number;
}

/**
 * For {@link RedisSMQ.redrive}: the dead-letter queue to empty, and where to.
 *
 * @example
 * await rsmq.redriveAsync({ from: "orders-dlq", limit: 100 }); // back to each message's source queue
 */
export interface RedriveOptions {
  /** The dead-letter queue to move messages out of. */
  from: string;
  /** The queue to move them to. @default each message's source queue */
  to?: string;
  /** Most messages to move; messages passed over (filtered out, or with no source) do not count. @default all */
  limit?: number;
  /**
   * Only dead letters that stopped for this reason (`"poison"`, `"exhausted"` or `"expired"`, as in
   * {@link DeadLetterInfo.reason}); the others stay where they are, with why they stopped.
   * Messages without a dead-letter record never match. @default any reason
   *
   * @example
   * await rsmq.redriveAsync({ from: "orders-dlq", reason: "exhausted" }); // the retryable ones only
   */
  reason?: "poison" | "exhausted" | "expired";
  /**
   * Only dead letters whose last error is exactly this text ({@link DeadLetterInfo.error}, case and
   * all); the others stay where they are. With `reason` too, a message must match both.
   * @default any error
   *
   * @example
   * await rsmq.redriveAsync({ from: "orders-dlq", reason: "exhausted", error: "connect ETIMEDOUT 10.0.0.7:443" });
   */
  error?: string;
  /**
   * Only this one message (its id, as the dead-letter queue lists it): it moves when it is there,
   * visible, and matches `reason` and `error` if given; resolves 1, or 0 with nothing changed.
   * One read of the message, then the same move as a page's. @default every message
   *
   * @example
   * await rsmq.redriveAsync({ from: "orders-dlq", id: "lsf3dk6b1mXs9aQnUmUSVXgJ2SHXXn3e" });
   */
  id?: string;
}
