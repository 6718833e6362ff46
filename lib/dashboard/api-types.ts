/**
 * The dashboard's JSON API, as the page and any script read it (docs/dashboard.md documents each
 * route). Times are epoch ms by the Redis server's clock; queue settings keep rsmq's units
 * (vt and delay in seconds, created and modified in epoch seconds).
 */
import type { DashboardCost, QueueRow } from "../queue-state/read-shapes";

// The shapes the queue-state reads and the operations under them answer with, shown as they are.
export type { BrowsedMessage, BrowsedState } from "../operations/message-page";
export type { DueWithin } from "../operations/queue-states";
export type { ConsumerInfo, QueuePause, QueueRateLimit, RateLimit, ScheduleCatchup, ScheduleInfo, ScheduleOverlap } from "../types";
export type { FindResponse } from "../queue-state/find-messages";
export type {
  ConsumersResponse,
  DashboardCost,
  DeadLetterGroup,
  DeadLettersResponse,
  MessageResponse,
  MessagesResponse,
  QueueRow,
  SchedulesResponse,
} from "../queue-state/read-shapes";

/** Whether the dashboard reaches Redis right now. */
export type RedisHealth = { ok: true } | { ok: false; error: string; since: number };

/** `GET api/queues`, and each event of `GET api/stream`. */
export interface QueuesResponse {
  /** When the reading was taken; null when none could be (Redis down from the start). */
  now: number | null;
  /** Ms between two readings while a stream is open. */
  intervalMs: number;
  /** Whether every mutating route is refused (the page then shows no action). */
  readOnly: boolean;
  redis: RedisHealth;
  cost: DashboardCost;
  /** Sorted by name; empty while Redis is down. */
  queues: QueueRow[];
}

/** `GET api/queues/:qname`. */
export interface QueueResponse {
  now: number;
  readOnly: boolean;
  queue: QueueRow;
}

/** Every error answer: a code, and a sentence that says what was wrong and what to do. */
export interface ErrorResponse {
  error: string;
  message: string;
}
