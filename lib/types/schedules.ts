/** The options and results of schedules: recurring messages a queue sends itself (docs/schedules.md). */
import type { BaseOptions } from "./queues";

/**
 * What a firing process does with slots it finds missed (it was down, a deploy, an outage): a slot
 * is missed when it is fired later than its on-time tolerance (half its period, at most a minute).
 * - `latest`: one message for the newest missed slot, if it is within `catchupWindowMs`;
 * - `all`: one per missed slot within `catchupWindowMs`, the newest 100 at most;
 * - `none`: none; the schedule goes on from its next slot.
 * Every slot not fired is counted in {@link ScheduleInfo.missed}.
 */
export type ScheduleCatchup = "latest" | "all" | "none";

/**
 * What a slot does while the message of the schedule's previous fire is still in the queue
 * (waiting, in flight or retried): `allow` sends it all the same; `skip` sends nothing and counts
 * the slot in {@link ScheduleInfo.overlapped}.
 */
export type ScheduleOverlap = "allow" | "skip";

/**
 * For {@link RedisSMQ.upsertSchedule}: a schedule of a queue, by name. Exactly one of `every` and
 * `cron`. Writing it again with the same timing keeps its state (its last and next slots, its
 * counts), so every replica may upsert it at start; a new timing applies from its next slot.
 *
 * @example
 * await rsmq.upsertScheduleAsync({ qname: "reports", name: "nightly", cron: "0 2 * * *", tz: "Europe/Berlin", message: "{}" });
 * await rsmq.upsertScheduleAsync({ qname: "health", name: "ping", every: 60_000, message: "ping" });
 */
export interface UpsertScheduleOptions extends BaseOptions {
  /** The schedule's name within its queue: 1 to 100 of `[A-Za-z0-9_.:-]`. */
  name: string;
  /**
   * Milliseconds between slots, a whole number from 1000 to 366 days. Slots are `anchor + k * every`
   * (the anchor is `startAt`, else the time of the first upsert), so they never drift.
   */
  every?: number;
  /**
   * A cron expression, 5 fields (minute first) or 6 (seconds first), evaluated in `tz`. Cron
   * schedules need the optional peer `croner` (`npm install croner`) in the processes that upsert
   * or fire them.
   */
  cron?: string;
  /**
   * The IANA time zone `cron` is read in. Across a DST change a time in the skipped hour fires at
   * the first valid time after it, and a time in the repeated hour fires once.
   * @default "UTC"
   */
  tz?: string;
  /** The body of every message it sends (as sendMessage's `message`). */
  message: string;
  /** Seconds each message waits before it is visible, 0 to 9999999. @default the queue's delay */
  delay?: number;
  /** As sendMessage's `priority`. @default 0 */
  priority?: number;
  /** @default "latest" */
  catchup?: ScheduleCatchup;
  /**
   * How old a missed slot may be and still be fired by `catchup` `latest` or `all`, in ms, from
   * 1000 to 366 days.
   * @default 86_400_000 (a day)
   */
  catchupWindowMs?: number;
  /** @default "allow" */
  overlap?: ScheduleOverlap;
  /** No slot before this (epoch ms or a Date); for `every`, the anchor of its slots. */
  startAt?: number | Date;
  /** No slot after this (epoch ms or a Date): the schedule then ends (it stays listed until removed). */
  endAt?: number | Date;
  /** Ends the schedule after this many messages, 1 to 1e9. */
  limit?: number;
}

/** For {@link RedisSMQ.removeSchedule}, {@link RedisSMQ.pauseSchedule} and {@link RedisSMQ.resumeSchedule}: a schedule by name. */
export interface ScheduleNameOptions extends BaseOptions {
  /** The schedule's name. */
  name: string;
}

/** For {@link RedisSMQ.listSchedules}: the queue whose schedules to list. */
export interface ListSchedulesOptions extends BaseOptions {}

/** A schedule as {@link RedisSMQ.listSchedules} reads it: its definition and its state. Times are epoch ms, server clock. */
export interface ScheduleInfo {
  /** The schedule's name. */
  name: string;
  /** Milliseconds between slots (an `every` schedule). */
  every?: number;
  /** The cron expression (a `cron` schedule). */
  cron?: string;
  /** The zone `cron` is read in ("UTC" for an `every` schedule). */
  tz: string;
  /** The first slot of an `every` schedule: its slots are `anchor + k * every`. */
  anchor?: number;
  /** The body of each message. */
  message: string;
  /** Seconds each message waits; absent: the queue's delay. */
  delay?: number;
  /** The priority of each message. */
  priority: number;
  /** What it does with missed slots (see {@link ScheduleCatchup}). */
  catchup: ScheduleCatchup;
  /** How old a missed slot may be and still be caught up, in ms. */
  catchupWindowMs: number;
  /** What a slot does while the previous message is still in the queue (see {@link ScheduleOverlap}). */
  overlap: ScheduleOverlap;
  /** No slot before this. */
  startAt?: number;
  /** No slot after this. */
  endAt?: number;
  /** It ends after this many messages. */
  limit?: number;
  /** Paused by {@link RedisSMQ.pauseSchedule}: no slot fires until it resumes, and the slots in between are not caught up. */
  paused: boolean;
  /** No slot is left: past `endAt`, or `limit` messages sent. */
  ended: boolean;
  /** When it was first written. */
  createdAt: number;
  /** When it was last written by an upsert, a pause or a resume. */
  updatedAt: number;
  /** The slot of the last message it sent; null before the first. */
  lastRunAt: number | null;
  /** When that message was sent (the server's time; later than its slot when it was caught up). */
  lastSentAt: number | null;
  /** The id of that message. */
  lastId: string | null;
  /** The next slot it will fire; null when paused or ended. */
  nextRunAt: number | null;
  /** How many messages it has sent. */
  count: number;
  /** How many slots it has not fired because they were missed (its `catchup` policy, or older than `catchupWindowMs`). */
  missed: number;
  /** How many slots `overlap: "skip"` has skipped. */
  overlapped: number;
}

/** Which schedule and slot a message was sent for; the Worker passes it on the message. */
export interface ScheduledMessageInfo {
  /** The schedule's name. */
  name: string;
  /** The slot it was sent for, epoch ms. */
  slot: number;
}
