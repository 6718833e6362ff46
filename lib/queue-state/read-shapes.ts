/**
 * What the queue-state reads answer with, as the dashboard's JSON API shows it (dashboard/api-types.ts
 * re-exports each under the same name; docs/dashboard.md documents the routes). Times are epoch ms
 * by the Redis server's clock; queue settings keep rsmq's units (vt and delay in seconds, created
 * and modified in epoch seconds).
 */
import type { ConsumerInfo, DeadLetterInfo, ScheduleInfo } from "../types";
import type { BrowsedMessage } from "../operations/message-page";
import type { DueWithin } from "../operations/queue-states";
import type { ScheduleFigures } from "../operations/schedule-figures";
import type { QueuePause, QueueRateLimit } from "../types";

/** One queue of the namespace, as one reading of all queues saw it (`GET api/queues`). */
export interface QueueRow {
  qname: string;
  /** Due now: the next receive may get them. Exact. */
  visible: number;
  /** Received and hidden for their vt (being handled, or waiting for a retry). */
  inFlight: number;
  /** Sent with a delay (or hidden without ever being received) and not due yet. */
  delayed: number;
  /** Every message of the queue. Exact. */
  total: number;
  /**
   * True when the queue has more hidden messages than one reading looks at one by one: then
   * `inFlight` and `delayed` split the earliest of them only (their sum is still exact).
   */
  partial: boolean;
  /** Age (now - sent) of the oldest first message of each priority level (without priorities: the one the next receive gets), when one is visible; else null. */
  oldestAgeMs: number | null;
  /** When the earliest hidden message becomes visible; null when none is hidden. */
  nextDueAt: number | null;
  /** Hidden messages that become visible within 1 min, 10 min, 1 h. */
  dueWithin: DueWithin;
  /** rsmq's `totalsent` counter, and its rate since the previous reading (null on the first). */
  totalsent: number;
  sentPerSecond: number | null;
  /** rsmq's `totalrecv` counter, and its rate since the previous reading (null on the first). */
  totalrecv: number;
  receivedPerSecond: number | null;
  /** The queue's `totalexpired` counter: messages that outlived its retention (docs/retention.md); 0 when none. */
  totalexpired: number;
  /** rsmq's queue settings: vt and delay in seconds, maxsize in bytes (-1: unlimited). */
  vt: number;
  delay: number;
  maxsize: number;
  /** Seconds a message is kept after it was sent (docs/retention.md); 0: kept for ever. */
  retention: number;
  /** The queue expired messages move to; null when they are deleted (or nothing expires). */
  expireTo: string | null;
  /**
   * The queue's pause when one is in force (or a hard pause's restore still runs, `restoring`);
   * null when it is not paused (docs/fleet-controls.md).
   */
  paused: QueuePause | null;
  /** The queue's rate limit; null when it has none. */
  rateLimit: QueueRateLimit | null;
  /** When a block of receives (rateLimitQueue, a handler's RateLimitError) ends, epoch ms; null when none is in force. */
  rateLimitedUntil: number | null;
  /** The queue's concurrency limit (most messages in flight at once with rsmq-next consumers); null when it has none. */
  concurrency: number | null;
  /** With a concurrency limit: the messages rsmq-next consumers hold now (live leases); null without one. */
  leased: number | null;
  /** The Workers consuming the queue now (live heartbeat entries; `GET api/queues/:q/consumers` lists them). */
  consumers: number;
  /** The queue's schedules (`GET api/queues/:q/schedules` lists them); 0 when it has none. */
  schedules: number;
  /** Epoch seconds, as rsmq stores them. */
  created: number;
  modified: number;
  /** This queue's dead-letter queue (`<qname>-dlq`, or as configured) when it exists, with its size. */
  deadLetterQueue: { qname: string; total: number } | null;
  /** Whether this queue is the dead-letter queue of another queue of the namespace. */
  isDeadLetterQueue: boolean;
}

/**
 * All queues of the namespace at the server's time `now` (epoch ms), with the schedules of those
 * that have any (read by the same script call).
 */
export interface Reading {
  now: number;
  queues: QueueRow[];
  schedules: QueueSchedules[];
}

/** What the dashboard itself costs Redis: commands it sent, counted where it sends them. */
export interface DashboardCost {
  /** Commands per second over the last minute (0 when no tab is open and nobody calls the API). */
  commandsPerSecond: number;
  /** Commands sent since the dashboard was created. */
  commands: number;
  /** Live-update streams open right now (one per open tab). */
  streams: number;
}

/** `GET api/queues/:qname/messages?offset=&limit=`: a page of messages in receive order. */
export interface MessagesResponse {
  now: number;
  qname: string;
  /** Messages in the queue. */
  total: number;
  offset: number;
  limit: number;
  messages: BrowsedMessage[];
}

/** `GET api/queues/:qname/messages/:id`: one message with its whole body. */
export interface MessageResponse {
  now: number;
  qname: string;
  message: BrowsedMessage;
}

/**
 * One group of dead letters: the same reason, and last errors that differ at most by numbers and
 * ids (lib/queue-state/dead-letter-groups.ts).
 */
export interface DeadLetterGroup {
  reason: DeadLetterInfo["reason"] | "unknown";
  /** One of their last errors, as written (cut to 200 characters): the group's example. */
  error: string;
  /** The errors' text with numbers as `<n>` and hex, uuid-like and message ids as `<id>`. */
  pattern: string;
  /** How many different error texts the group holds. */
  variants: number;
  /** The different error texts, the first 20 met (redrive's `error` filter takes one exact text). */
  errors: string[];
  count: number;
  /** The queues they came from. */
  sources: string[];
  /** When the first and the last of them were dead-lettered; null when none says (no note). */
  firstAt: number | null;
  lastAt: number | null;
}

/** `GET api/queues/:qname/consumers`: the Workers consuming the queue (live heartbeat entries), at the server's time `now`. */
export interface ConsumersResponse {
  now: number;
  qname: string;
  /** Sorted by when each started, then by id. */
  consumers: ConsumerInfo[];
}

/** `GET api/queues/:qname/schedules`: the queue's schedules (listSchedulesAsync), at the server's time `now`. */
export interface SchedulesResponse {
  now: number;
  qname: string;
  /** Sorted by name. */
  schedules: ScheduleInfo[];
}

/** One queue's schedules, for the schedule metrics: what they show of each, sorted by name. */
export interface QueueSchedules {
  qname: string;
  schedules: ScheduleFigures[];
}

/** `GET api/queues/:qname/dead-letters`: why the messages of a dead-letter queue stopped. */
export interface DeadLettersResponse {
  qname: string;
  total: number;
  /** How many messages were looked at (the first ones in receive order). */
  looked: number;
  /** True when `looked` < `total`: the groups cover the first messages only. */
  partial: boolean;
  /** Largest first. */
  groups: DeadLetterGroup[];
}
