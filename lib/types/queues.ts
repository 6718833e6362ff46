/** The options of the calls on a whole queue, and what they answer. */

/** The queue every call names. */
export interface BaseOptions {
  /** The queue name: 1 to 160 of `[a-zA-Z0-9_-]`. `QUEUES` is reserved. */
  qname: string;
}

/**
 * A queue's settings: what {@link RedisSMQ.createQueue} sets (the defaults below are its own) and
 * {@link RedisSMQ.setQueueAttributes} changes.
 */
interface QueueSettings {
  /** Seconds a received message stays invisible, 0 to 9999999. @default 30 */
  vt?: number;
  /** Seconds every new message is delayed, 0 to 9999999. @default 0 */
  delay?: number;
  /** Largest message, in UTF-16 code units (JavaScript string length), 1024 to 65536, or -1 for unlimited. @default 65536 */
  maxsize?: number;
  /**
   * Seconds a message is kept after it was sent, 0 to 9999999; 0 keeps messages for ever. rsmq-next
   * never delivers an older message: it deletes it, or moves it to `expireTo`.
   * @default 0
   */
  retention?: number;
  /**
   * A queue to move expired messages to (with reason `expired`), created on demand like a Worker's
   * dead-letter queue; `""` (or, at createQueue, none) deletes them.
   */
  expireTo?: string;
  /**
   * Milliseconds a `dedupId` is remembered after its first send, 1 to 86400000 (24 h): the
   * queue's default for sends that give a `dedupId` and no `dedupWindowMs`. setQueueAttributes
   * also takes `0`, to go back to 300000.
   * @default 300000 (5 minutes, as SQS FIFO queues)
   */
  dedupWindowMs?: number;
}

/**
 * For {@link RedisSMQ.createQueue}: the queue's name and its settings, which every message of the
 * queue follows unless a call overrides them.
 *
 * @example
 * await rsmq.createQueueAsync({ qname: "emails", vt: 60, delay: 0, maxsize: -1 });
 */
export interface CreateQueueOptions extends BaseOptions, QueueSettings {}

/** For {@link RedisSMQ.deleteQueue}: the queue to delete, with all its messages. */
export interface DeleteQueueOptions extends BaseOptions {}

/**
 * For {@link RedisSMQ.purgeQueue}: the queue to empty. Its messages go; the queue, its settings
 * and its counters stay.
 */
export interface PurgeQueueOptions extends BaseOptions {}

/** For {@link RedisSMQ.getQueueAttributes}: the queue to describe. */
export interface GetQueueAttributesOptions extends BaseOptions {}

/**
 * For {@link RedisSMQ.setQueueAttributes}: the settings to change; at least one of them. A setting
 * left out stays as it is (the defaults are createQueue's). A new `vt` or `delay` applies to
 * messages received or sent from then on.
 */
export interface SetQueueAttributesOptions extends BaseOptions, QueueSettings {}

/** A queue's settings and counts, as rsmq returns them. */
export interface QueueAttributes {
  /** Visibility timeout in seconds. */
  vt: number;
  /** Delay for new messages in seconds. */
  delay: number;
  /** Maximum message length, or -1 for unlimited. */
  maxsize: number;
  /** Messages received so far. */
  totalrecv: number;
  /** Messages sent so far. */
  totalsent: number;
  /** When the queue was created, epoch seconds. */
  created: number;
  /** When setQueueAttributes last changed the queue, epoch seconds. */
  modified: number;
  /** Messages in the queue, visible or not. */
  msgs: number;
  /** Messages not visible right now: in flight, or delayed. */
  hiddenmsgs: number;
  /**
   * Seconds a message is kept after it was sent; present only when the queue has a retention, so
   * a queue without one reads exactly as under rsmq 0.12.4.
   */
  retention?: number;
  /** Where expired messages go; present only when the queue moves them rather than deleting them. */
  expireTo?: string;
  /** Messages expired so far (deleted or moved); present when the queue has a retention or expired any. */
  totalexpired?: number;
  /** The queue's deduplication window in ms; present only when set. */
  dedupWindowMs?: number;
  /**
   * The queue's pause ({@link RedisSMQ.pauseQueue}); absent when not paused (a pause whose `until`
   * passed included). While a hard pause's resume still restores scores: `{ restoring: true }`
   * with its `since` and `hard`, and the queue is not paused.
   */
  paused?: QueuePause;
  /** The queue's rate limit ({@link RedisSMQ.setRateLimit}); absent when it has none. */
  rateLimit?: QueueRateLimit;
  /** Until when receives are blocked ({@link RedisSMQ.rateLimitQueue}), epoch ms; absent when no block is in force. */
  rateLimitedUntil?: number;
  /** The queue's concurrency limit ({@link RedisSMQ.setConcurrency}): most messages in flight at once; absent when it has none. */
  concurrency?: number;
  /** With a concurrency limit: how many messages rsmq-next consumers hold now (live leases); absent without one. */
  leased?: number;
}

/** For {@link RedisSMQ.sweepExpired}: which queue to sweep. */
export interface SweepExpiredOptions {
  /** The queue: any queue; one with no `retention` is done at once. */
  qname: string;
}

/** What one sweep of a queue's expired messages did (docs/retention.md). */
export interface SweepResult {
  /** Messages that had outlived the retention and were deleted or moved (counted in `totalexpired`). */
  expired: number;
  /** Of those, moved to the queue's `expireTo` queue with reason `"expired"`. */
  moved: number;
  /** Parked for a move that failed: they come back after a minute and are moved by a later pass or receive. */
  failed: number;
  /** How many chunks (one script call each, 100 messages looked at) the pass took. */
  chunks: number;
  /** Another sweeper held the queue's sweep lock: this call did nothing; that sweeper covers the queue. */
  busy: boolean;
}

/** One limit of a queue's rate limit: at most `max` per `perMs` milliseconds, with `burst` more at once after a quiet spell. */
export interface RateLimit {
  /** Messages per `perMs`, a whole number from 1 to 1000000. */
  max: number;
  /** The limit's window, in milliseconds, a whole number from 1 to 86400000 (a day). */
  perMs: number;
  /**
   * How many more may go at once after a quiet spell, a whole number from 0 up to 1000000; no
   * window of `perMs` ever sees more than `max + burst`.
   * @default 0
   */
  burst?: number;
}

/** A queue's pause, as {@link QueueAttributes} reports it. */
export interface QueuePause {
  /** When it was paused, epoch ms (server clock). */
  since: number;
  /** When it ends by itself, epoch ms; absent: until a resume. */
  until?: number;
  /** Whether every score is shifted (rsmq 0.12.4 consumers paused too). */
  hard: boolean;
  /** Set while a hard pause's resume still restores scores: the queue is not paused, and this is the only field then. */
  restoring?: true;
}

/** A queue's rate limit, as {@link QueueAttributes} reports it. */
export interface QueueRateLimit {
  /** Its limits, each with its `burst`. */
  limits: Array<Required<RateLimit>>;
  /** Where they are checked. */
  mode: "receive" | "pace";
}
