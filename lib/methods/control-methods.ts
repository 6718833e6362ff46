/**
 * The controls of RedisSMQ's queues, as its users call them: pause and resume, rate limits and
 * blocks, concurrency limits, and who is consuming. Each `<name>Async` method and its callback
 * twin `<name>`; QueueMethods (queue-methods.ts) extends this, and the facade builds every method
 * from the operation's descriptor (registry.ts).
 */
import type { CallbackMethod } from "../callbacks";
import type {
  ConsumerInfo,
  ListConsumersOptions,
  PauseQueueOptions,
  RateLimitQueueOptions,
  RemoveConcurrencyOptions,
  RemoveRateLimitOptions,
  ResumeQueueOptions,
  SetConcurrencyOptions,
  SetRateLimitOptions,
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
}
