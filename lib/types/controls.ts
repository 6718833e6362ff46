/** The options of a queue's controls (pause, resume, rate limits, blocks), and what attributes report of them. */
import type { BaseOptions, RateLimit } from "./queues";

/**
 * For {@link RedisSMQ.pauseQueue}: the queue to pause, until when, and how.
 *
 * @example
 * await rsmq.pauseQueueAsync({ qname: "emails" });
 * await rsmq.pauseQueueAsync({ qname: "emails", until: Date.now() + 15 * 60_000 });
 * await rsmq.pauseQueueAsync({ qname: "emails", hard: true }); // rsmq 0.12.4 consumers stop too
 */
export interface PauseQueueOptions extends BaseOptions {
  /**
   * When the pause ends by itself, epoch milliseconds or a Date, on the server's clock: after now
   * and at most a year ahead. Left out: until {@link RedisSMQ.resumeQueue}. Not with `hard`.
   */
  until?: number | Date;
  /**
   * Moves every message's visibility time far into the future (in chunks of 1000, Redis never
   * blocked long), so rsmq 0.12.4 consumers, which do not read the pause, take nothing either;
   * the resume restores every one exactly. Lasts until a resume.
   * @default false
   */
  hard?: boolean;
}

/** For {@link RedisSMQ.resumeQueue}: the queue to resume. */
export interface ResumeQueueOptions extends BaseOptions {}

/**
 * For {@link RedisSMQ.setRateLimit}: the queue, its limits (all hold at once), and where they are
 * checked.
 *
 * @example
 * // 3 per second and 100 per minute, whatever the number of consumers:
 * await rsmq.setRateLimitAsync({ qname: "api-calls", limits: [{ max: 3, perMs: 1000 }, { max: 100, perMs: 60_000 }] });
 */
export interface SetRateLimitOptions extends BaseOptions {
  /** 1 to 8 limits. */
  limits: RateLimit[];
  /**
   * `receive`: rsmq-next's receives take no more than the limits allow. `pace`: rsmq-next's sends
   * space the messages' visibility times at the limits' rate, so every consumer (rsmq 0.12.4's
   * too) receives at most the limit.
   * @default "receive"
   */
  mode?: "receive" | "pace";
}

/** For {@link RedisSMQ.removeRateLimit}: the queue whose rate limit goes. */
export interface RemoveRateLimitOptions extends BaseOptions {}

/** For {@link RedisSMQ.rateLimitQueue}: the queue whose receives stop, and for how long. */
export interface RateLimitQueueOptions extends BaseOptions {
  /** Milliseconds from now (server clock), a whole number from 1 to 86400000; a later block in force stays. */
  ms: number;
}

/**
 * For {@link RedisSMQ.setConcurrency}: at most `max` messages of the queue in flight at once
 * across every rsmq-next consumer, in every process (rsmq 0.12.4 consumers do not obey it).
 *
 * @example
 * // The payments API takes 3 requests at a time, whatever the number of Workers:
 * await rsmq.setConcurrencyAsync({ qname: "payments", max: 3 });
 */
export interface SetConcurrencyOptions extends BaseOptions {
  /** Messages in flight at most, a whole number from 1 to 10000. */
  max: number;
}

/** For {@link RedisSMQ.removeConcurrency}: the queue whose concurrency limit goes. */
export interface RemoveConcurrencyOptions extends BaseOptions {}

/** For {@link RedisSMQ.listConsumers}: the queue whose Workers to list. */
export interface ListConsumersOptions extends BaseOptions {}

/** A Worker consuming a queue, as its heartbeat tells it ({@link RedisSMQ.listConsumers}). */
export interface ConsumerInfo {
  /** The Worker's id, drawn when it started (unique per Worker, 16 characters of [A-Za-z0-9]). */
  id: string;
  /** The host it runs on (os.hostname()). */
  host: string;
  /** Its process id. */
  pid: number;
  /** How many messages it handles at once (its `concurrency` option). */
  concurrency: number;
  /** When it started, epoch ms (its own clock). */
  startedAt: number;
  /** When its last heartbeat reached the server, epoch ms (server clock). */
  lastSeenAt: number;
  /** When the entry lapses unless the Worker beats again, epoch ms (server clock): it is not listed after. */
  expiresAt: number;
}
