/**
 * The controls of RedisSMQ's queues, as its users call them: pause and resume, rate limits and
 * blocks, concurrency limits, who is consuming, and schedules (recurring messages). Each `<name>Async` method and its callback
 * twin `<name>`; QueueMethods (queue-methods.ts) extends this, and the facade builds every method
 * from the operation's descriptor (registry.ts).
 */
import type { CallbackMethod } from "../callbacks";
import type {
  ConsumerInfo,
  ListConsumersOptions,
  ListSchedulesOptions,
  PauseQueueOptions,
  RateLimitQueueOptions,
  RemoveConcurrencyOptions,
  RemoveRateLimitOptions,
  ResumeQueueOptions,
  ScheduleInfo,
  ScheduleNameOptions,
  SetConcurrencyOptions,
  SetRateLimitOptions,
  UpsertScheduleOptions,
} from "../types";

/** RedisSMQ's queue controls: every method is bound, like the rest of QueueMethods. */
export interface ControlMethods {
  /**
   * Pauses a queue: rsmq-next's receives (receiveMessage(s), with or without `waitMs`,
   * deleteAndReceive, popMessage, every Worker) take nothing from their next call on, in every
   * process; sends are accepted, and messages in flight can still be deleted. With `until`
   * (epoch ms or a Date, server clock) it resumes by itself. rsmq 0.12.4 consumers do not read the
   * pause; with `hard: true` every waiting message's visibility time is moved far into the future
   * (in chunks of 1000, so Redis is never blocked long), and they see nothing due either, until
   * {@link resumeQueueAsync} restores each one exactly. Pausing a paused queue updates it; a hard
   * pause stays hard until a resume. Resolves `1`; rejects `queueNotFound`.
   *
   * @example
   * await rsmq.pauseQueueAsync({ qname: "emails" });
   * await rsmq.pauseQueueAsync({ qname: "emails", until: new Date(Date.now() + 10 * 60_000) });
   */
  readonly pauseQueueAsync: (options: PauseQueueOptions) => Promise<1>;
  /**
   * Resumes a paused queue (after a hard pause, once every score is restored) and wakes its
   * sleeping Workers and waiting receives at once, in this process and in others (a control wake
   * on the queue's wake channel). Resolves `1` when it was paused, `0` when not; rejects
   * `queueNotFound`.
   *
   * @example
   * await rsmq.resumeQueueAsync({ qname: "emails" });
   */
  readonly resumeQueueAsync: (options: ResumeQueueOptions) => Promise<0 | 1>;
  /**
   * Sets a queue's rate limit, obeyed by every rsmq-next consumer of the queue together: one or
   * more limits `{ max, perMs, burst? }` that all hold at once (GCRA: no window of `perMs` ever
   * sees more than `max + burst`). In `mode: "receive"` (the default) receives take no more than
   * the limits allow and say when to retry; in `mode: "pace"` rsmq-next's sends space the
   * messages' visibility times instead, so rsmq 0.12.4 consumers keep to it too. Replaces a limit
   * in force (which starts again with its full burst). Resolves `1`; rejects `queueNotFound`.
   *
   * @example
   * await rsmq.setRateLimitAsync({ qname: "api-calls", limits: [{ max: 10, perMs: 1000, burst: 5 }] });
   */
  readonly setRateLimitAsync: (options: SetRateLimitOptions) => Promise<1>;
  /** Removes a queue's rate limit. Resolves `1` when it had one, `0` when not; rejects `queueNotFound`. */
  readonly removeRateLimitAsync: (options: RemoveRateLimitOptions) => Promise<0 | 1>;
  /**
   * Blocks a queue's receives for `ms` milliseconds (server clock), e.g. when a downstream API
   * answered 429: rsmq-next's consumers take nothing until then, whatever its rate limit. A later
   * block in force stays. Resolves `1`; rejects `queueNotFound`.
   *
   * @example
   * await rsmq.rateLimitQueueAsync({ qname: "api-calls", ms: 30_000 });
   */
  readonly rateLimitQueueAsync: (options: RateLimitQueueOptions) => Promise<1>;
  /**
   * Sets a queue's concurrency limit: at most `max` (1 to 10000) of its messages in flight at once
   * with rsmq-next consumers, across every process (rsmq 0.12.4 consumers do not obey it). A
   * receive at the limit takes nothing (`blocked: { reason: "maxed" }`), and the delete that frees
   * a slot wakes the consumers it held. Replaces a limit in force. Resolves `1`; rejects `queueNotFound`.
   *
   * @example
   * await rsmq.setConcurrencyAsync({ qname: "payments", max: 3 });
   */
  readonly setConcurrencyAsync: (options: SetConcurrencyOptions) => Promise<1>;
  /** Removes a queue's concurrency limit. Resolves `1` when it had one, `0` when not; rejects `queueNotFound`. */
  readonly removeConcurrencyAsync: (options: RemoveConcurrencyOptions) => Promise<0 | 1>;
  /**
   * The Workers consuming a queue, from the heartbeats each keeps in the queue's hash (it works
   * where `CLIENT LIST` is refused): host, pid, concurrency, when it started and was last seen.
   * Live entries only (a Worker that stopped is gone at once; one that died, when its entry
   * expires: two idle caps), sorted by `startedAt`, then `id`. Rejects `queueNotFound`.
   *
   * @example
   * for (const c of await rsmq.listConsumersAsync({ qname: "jobs" })) console.log(c.host, c.pid, c.concurrency);
   */
  readonly listConsumersAsync: (options: ListConsumersOptions) => Promise<ConsumerInfo[]>;
  /**
   * Writes a schedule of a queue: a message the queue sends itself `every` so many ms, or on a
   * `cron` expression in the zone `tz` (docs/schedules.md). Only the definition is written; the
   * messages are sent by every Worker of the queue and by any `RedisSMQ.Scheduler`, once per
   * slot whatever their number. Writing it again with the same timing keeps its state (last and
   * next slots, counts, pause), so every replica may upsert its schedules at start; a new timing
   * applies from its next slot. Every option is checked before any round trip (`invalidValue`:
   * both or neither of `every` and `cron`, a bad expression, an unknown zone, `every` out of 1000
   * ms to 366 days, a bad name; `cron` needs the optional peer `croner`). Resolves `1` when it
   * created the schedule, `0` when it replaced one; rejects `queueNotFound`, `messageTooLong` (the
   * queue's maxsize), `invalidValue` when the queue has 100 schedules already.
   *
   * @example
   * await rsmq.upsertScheduleAsync({ qname: "reports", name: "nightly", cron: "0 2 * * *", tz: "Europe/Berlin", message: "{}" });
   * await rsmq.upsertScheduleAsync({ qname: "health", name: "ping", every: 60_000, message: "ping" });
   */
  readonly upsertScheduleAsync: (options: UpsertScheduleOptions) => Promise<0 | 1>;
  /**
   * Removes a schedule: no slot fires from then on. Resolves `1` when it removed it, `0` when the
   * queue has no schedule of that name; rejects `queueNotFound`.
   *
   * @example
   * await rsmq.removeScheduleAsync({ qname: "reports", name: "nightly" });
   */
  readonly removeScheduleAsync: (options: ScheduleNameOptions) => Promise<0 | 1>;
  /**
   * Pauses a schedule: no slot fires until {@link resumeScheduleAsync}, and the slots in between
   * are not caught up. Resolves `1` when it paused it, `0` when it was paused already; rejects
   * `queueNotFound`, `scheduleNotFound`.
   *
   * @example
   * await rsmq.pauseScheduleAsync({ qname: "reports", name: "nightly" });
   */
  readonly pauseScheduleAsync: (options: ScheduleNameOptions) => Promise<0 | 1>;
  /**
   * Resumes a paused schedule from its next slot after now. Resolves `1` when it resumed it, `0`
   * when it was not paused; rejects `queueNotFound`, `scheduleNotFound`.
   *
   * @example
   * await rsmq.resumeScheduleAsync({ qname: "reports", name: "nightly" });
   */
  readonly resumeScheduleAsync: (options: ScheduleNameOptions) => Promise<0 | 1>;
  /**
   * A queue's schedules, sorted by name: each definition with its state (last and next run, how
   * many messages it sent, how many slots it missed or skipped), times in epoch ms on the
   * server's clock. Rejects `queueNotFound`.
   *
   * @example
   * for (const s of await rsmq.listSchedulesAsync({ qname: "reports" })) console.log(s.name, s.nextRunAt, s.count);
   */
  readonly listSchedulesAsync: (options: ListSchedulesOptions) => Promise<ScheduleInfo[]>;
  /** Pauses a queue; the callback gets `1`. See {@link pauseQueueAsync}. */
  readonly pauseQueue: CallbackMethod<PauseQueueOptions, 1>;
  /** Resumes a paused queue; the callback gets `1` when it was paused, else `0`. See {@link resumeQueueAsync}. */
  readonly resumeQueue: CallbackMethod<ResumeQueueOptions, 0 | 1>;
  /** Sets a queue's rate limit; the callback gets `1`. See {@link setRateLimitAsync}. */
  readonly setRateLimit: CallbackMethod<SetRateLimitOptions, 1>;
  /** Removes a queue's rate limit; the callback gets `1` when it had one, else `0`. See {@link removeRateLimitAsync}. */
  readonly removeRateLimit: CallbackMethod<RemoveRateLimitOptions, 0 | 1>;
  /** Blocks a queue's receives for `ms` milliseconds; the callback gets `1`. See {@link rateLimitQueueAsync}. */
  readonly rateLimitQueue: CallbackMethod<RateLimitQueueOptions, 1>;
  /** Sets a queue's concurrency limit; the callback gets `1`. See {@link setConcurrencyAsync}. */
  readonly setConcurrency: CallbackMethod<SetConcurrencyOptions, 1>;
  /** Removes a queue's concurrency limit; the callback gets `1` when it had one, else `0`. See {@link removeConcurrencyAsync}. */
  readonly removeConcurrency: CallbackMethod<RemoveConcurrencyOptions, 0 | 1>;
  /** The Workers consuming a queue; the callback gets their entries. See {@link listConsumersAsync}. */
  readonly listConsumers: CallbackMethod<ListConsumersOptions, ConsumerInfo[]>;
  /** Writes a schedule; the callback gets `1` when it created it, else `0`. See {@link upsertScheduleAsync}. */
  readonly upsertSchedule: CallbackMethod<UpsertScheduleOptions, 0 | 1>;
  /** Removes a schedule; the callback gets `1` when it removed one, else `0`. See {@link removeScheduleAsync}. */
  readonly removeSchedule: CallbackMethod<ScheduleNameOptions, 0 | 1>;
  /** Pauses a schedule; the callback gets `1` when it paused it, else `0`. See {@link pauseScheduleAsync}. */
  readonly pauseSchedule: CallbackMethod<ScheduleNameOptions, 0 | 1>;
  /** Resumes a paused schedule; the callback gets `1` when it resumed it, else `0`. See {@link resumeScheduleAsync}. */
  readonly resumeSchedule: CallbackMethod<ScheduleNameOptions, 0 | 1>;
  /** A queue's schedules; the callback gets them. See {@link listSchedulesAsync}. */
  readonly listSchedules: CallbackMethod<ListSchedulesOptions, ScheduleInfo[]>;
}
