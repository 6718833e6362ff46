/**
 * What the library tells its telemetry as it runs, in one interface: the facade and the Worker
 * call a Recorder, and each backend implements one (the OpenTelemetry meter in otel/, the user's
 * prom-client registry in prometheus/). Nothing here touches Redis: every figure is counted in
 * process, from what the calls already know. Labels stay bounded: a queue name, an operation, an
 * outcome or a reason, never an id.
 *
 * The hub (telemetry-hub.ts) holds the instance's recorders; with none, `recording` is undefined
 * and a hot path pays one property read.
 */

/** The client calls, as `messaging.operation.name` names them. */
export type OperationName = "send" | "receive" | "pop" | "delete" | "change_visibility" | "dead_letter" | "redrive";

/** How a Worker settled a message its handler was given (`rate_limited`: its handler threw a RateLimitError, the message was put back). */
export type WorkerOutcome = "ack" | "retry" | "dead_letter" | "drop" | "rate_limited";

/** Why a Worker woke: a send or realtime notification, its own timer (a due time), or the look at the end of a cap-long sleep. */
export type WakeupCause = "notification" | "timer" | "cap";

/** What the poll after a wakeup found. */
export type WakeupResult = "message" | "empty";

/**
 * The Redis commands the library sent, by what they were for: the idle promise, provable in
 * production. `look` is a Worker's read-only look after an idle sleep; `housekeeping` the wake
 * subscription's health checks, the registry and queue administration.
 */
export type CommandKind = "send" | "receive" | "settle" | "look" | "housekeeping";

/** What the library reports; every method is cheap and never throws into the caller. */
export interface Recorder {
  /** A send was attempted: `count` messages; `errorType` set when it failed. */
  sent(queue: string, count: number, errorType?: string): void;
  /** Messages handed to the caller by a receive or pop (counted once per delivery). */
  consumed(queue: string, operation: "receive" | "pop", count: number): void;
  /** A client call's duration in seconds (not a handler's: see processed). */
  operationDuration(queue: string, operation: OperationName, seconds: number, errorType?: string): void;
  /** A Worker handler ran for `seconds`; `errorType` when it threw. */
  processed(queue: string, seconds: number, errorType?: string): void;
  /** How a Worker settled a message. */
  outcome(queue: string, outcome: WorkerOutcome): void;
  /** A handler ended after its message's visibility timeout: the message may be delivered twice. */
  visibilityExpired(queue: string): void;
  /** A message moved to a dead-letter queue (`queue` is the queue it left), and why. */
  deadLettered(queue: string, reason: string): void;
  /** `count` messages of `queue` outlived its retention and were deleted or moved (docs/retention.md). */
  expired(queue: string, count: number): void;
  /** A send with a dedupId found it taken: nothing was stored (docs/idempotent-sends.md). */
  deduplicated(queue: string): void;
  /** Handlers running now changed by `delta`. */
  inFlight(queue: string, delta: number): void;
  /** The handler slots of running Workers changed by `delta` (a Worker started: +concurrency; stopped: -concurrency). */
  concurrency(queue: string, delta: number): void;
  /** A Worker woke, and what its next poll found. */
  wakeup(queue: string, cause: WakeupCause, result: WakeupResult): void;
  /**
   * Seconds a message waited between becoming visible and being received (exact: the receive
   * script returns the score it took); `tenant`: its `tenant` attribute, labelled only when the
   * recorder was asked to (`tenantLabels`, tenant-labels.ts).
   */
  waited(queue: string, seconds: number, tenant?: string): void;
  /** Redis commands the library sent. */
  commands(kind: CommandKind, count: number): void;
}
