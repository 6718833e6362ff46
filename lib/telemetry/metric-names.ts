/**
 * Every metric the library emits, declared once: its OpenTelemetry name, instrument, unit and
 * description, and the Prometheus name the usual translation gives it (base units, `_total` on
 * counters, `_seconds`). Semantic-convention names where they exist, `rsmq.*` otherwise. The
 * OpenTelemetry meter (otel/), the prom-client collector (prometheus/) and the exporter's text
 * (metrics/) all read this table, and docs/telemetry.md lists it.
 */

/** How a metric is recorded. */
export type Instrument = "counter" | "histogram" | "updown" | "gauge" | "observableCounter";

export interface MetricDefinition {
  /** The OpenTelemetry instrument name. */
  readonly otel: string;
  /** The Prometheus series name. */
  readonly prometheus: string;
  readonly instrument: Instrument;
  /** UCUM unit, as OpenTelemetry takes it. */
  readonly unit: string;
  readonly description: string;
  /** Prometheus label names beyond `queue` (OpenTelemetry attribute names are in telemetry/attributes.ts). */
  readonly labels: readonly string[];
  /** Histogram bucket boundaries, in the unit. */
  readonly buckets?: readonly number[];
}

/** The messaging semantic conventions' advice for operation and process durations, in seconds. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10] as const;

/** How long messages wait to be received: from tens of milliseconds to an hour. */
export const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600] as const;

/** Counted in process, by each client that runs the calls. */
export const IN_PROCESS_METRICS = {
  sent: {
    otel: "messaging.client.sent.messages",
    prometheus: "messaging_client_sent_messages_total",
    instrument: "counter",
    unit: "{message}",
    description: "Messages the client attempted to send (error_type set when the send failed).",
    labels: ["error_type"],
  },
  consumed: {
    otel: "messaging.client.consumed.messages",
    prometheus: "messaging_client_consumed_messages_total",
    instrument: "counter",
    unit: "{message}",
    description: "Messages delivered to the client by a receive or a pop, once per delivery.",
    labels: ["operation"],
  },
  operationDuration: {
    otel: "messaging.client.operation.duration",
    prometheus: "messaging_client_operation_duration_seconds",
    instrument: "histogram",
    unit: "s",
    description: "Duration of a client call: send, receive, pop, delete, change_visibility, dead_letter, redrive.",
    labels: ["operation", "error_type"],
    buckets: DURATION_BUCKETS,
  },
  processDuration: {
    otel: "messaging.process.duration",
    prometheus: "messaging_process_duration_seconds",
    instrument: "histogram",
    unit: "s",
    description: "Duration of a Worker handler call (error_type set when it threw).",
    labels: ["error_type"],
    buckets: DURATION_BUCKETS,
  },
  outcomes: {
    otel: "rsmq.worker.outcomes",
    prometheus: "rsmq_worker_outcomes_total",
    instrument: "counter",
    unit: "{message}",
    description:
      "How a Worker settled each message: ack, retry, dead_letter, drop or rate_limited (put back by a RateLimitError, not a failure).",
    labels: ["outcome"],
  },
  visibilityExpired: {
    otel: "rsmq.worker.visibility_expired",
    prometheus: "rsmq_worker_visibility_expired_total",
    instrument: "counter",
    unit: "{message}",
    description: "Handlers that ended after their message's visibility timeout: the message may have been delivered twice.",
    labels: [],
  },
  deadLettered: {
    otel: "rsmq.dead_letter.messages",
    prometheus: "rsmq_dead_letter_messages_total",
    instrument: "counter",
    unit: "{message}",
    description: "Messages moved to a dead-letter queue, by the queue they left and why.",
    labels: ["reason"],
  },
  expired: {
    otel: "rsmq.messages.expired",
    prometheus: "rsmq_messages_expired_total",
    instrument: "counter",
    unit: "{message}",
    description: "Messages that outlived their queue's retention, deleted or moved to its expireTo queue, as this process saw them.",
    labels: [],
  },
  deduplicated: {
    otel: "rsmq.messages.deduplicated",
    prometheus: "rsmq_messages_deduplicated_total",
    instrument: "counter",
    unit: "{message}",
    description: "Sends whose dedupId was taken within its window: nothing stored, the first message's id returned.",
    labels: [],
  },
  inFlight: {
    otel: "rsmq.worker.in_flight",
    prometheus: "rsmq_worker_in_flight",
    instrument: "updown",
    unit: "{message}",
    description: "Worker handlers running now.",
    labels: [],
  },
  concurrency: {
    otel: "rsmq.worker.concurrency",
    prometheus: "rsmq_worker_concurrency",
    instrument: "updown",
    unit: "{message}",
    description: "Handler slots of the running Workers (in_flight / concurrency is their use).",
    labels: [],
  },
  wakeups: {
    otel: "rsmq.worker.wakeups",
    prometheus: "rsmq_worker_wakeups_total",
    instrument: "counter",
    unit: "{wakeup}",
    description: "Worker wakeups by cause (notification, timer, cap) and by what the next poll found (message, empty).",
    labels: ["cause", "result"],
  },
  waited: {
    otel: "rsmq.message.wait.duration",
    prometheus: "rsmq_message_wait_duration_seconds",
    instrument: "histogram",
    unit: "s",
    description: "Time a message waited between becoming visible and being received.",
    labels: [],
    buckets: WAIT_BUCKETS,
  },
  commands: {
    otel: "rsmq.redis.commands",
    prometheus: "rsmq_redis_commands_total",
    instrument: "counter",
    unit: "{command}",
    description: "Redis commands the library sent, by kind: send, receive, settle, look, housekeeping.",
    labels: ["kind"],
  },
} as const satisfies Record<string, MetricDefinition>;

/** Read from Redis when collected (one round trip for all queues of a namespace on one server), never by every Worker. */
export const QUEUE_STATE_METRICS = {
  messages: {
    otel: "rsmq.queue.messages",
    prometheus: "rsmq_queue_messages",
    instrument: "gauge",
    unit: "{message}",
    description:
      "Messages in the queue by state: visible (due now), in_flight (received and hidden), delayed (sent with a delay, not due yet); hidden_unsplit: hidden ones past the 1,000 a reading tells apart.",
    labels: ["state"],
  },
  oldestVisibleAge: {
    otel: "rsmq.queue.oldest_visible.age",
    prometheus: "rsmq_queue_oldest_visible_age_seconds",
    instrument: "gauge",
    unit: "s",
    description:
      "Age, from its send time (in its id), of the oldest visible message among the first of each priority level (without priorities: the one the next receive gets); 0 when none is visible.",
    labels: [],
  },
  nextDue: {
    otel: "rsmq.queue.next_due",
    prometheus: "rsmq_queue_next_due_timestamp_seconds",
    instrument: "gauge",
    unit: "s",
    description: "When the earliest hidden message becomes visible (Unix time); absent when none is hidden.",
    labels: [],
  },
  sent: {
    otel: "rsmq.queue.sent.messages",
    prometheus: "rsmq_queue_sent_messages_total",
    instrument: "observableCounter",
    unit: "{message}",
    description: "Messages ever sent to the queue (rsmq's totalsent).",
    labels: [],
  },
  received: {
    otel: "rsmq.queue.received.messages",
    prometheus: "rsmq_queue_received_messages_total",
    instrument: "observableCounter",
    unit: "{message}",
    description: "Receives ever made on the queue (rsmq's totalrecv).",
    labels: [],
  },
  expired: {
    otel: "rsmq.queue.expired.messages",
    prometheus: "rsmq_queue_expired_messages_total",
    instrument: "observableCounter",
    unit: "{message}",
    description: "Messages that ever outlived the queue's retention, deleted or moved to its expireTo (the queue's totalexpired).",
    labels: [],
  },
  // The queue's controls (docs/fleet-controls.md): one series per queue each, so cardinality stays the queues'.
  paused: {
    otel: "rsmq.queue.paused",
    prometheus: "rsmq_queue_paused",
    instrument: "gauge",
    unit: "1",
    description: "1 while the queue is paused (rsmq-next consumers receive nothing), else 0.",
    labels: [],
  },
  rateLimit: {
    otel: "rsmq.queue.rate_limit",
    prometheus: "rsmq_queue_rate_limit_per_second",
    instrument: "gauge",
    unit: "{message}/s",
    description: "The queue's rate limit: messages per second of its tightest limit (max / perMs, without the burst); absent without one.",
    labels: [],
  },
  rateLimitedUntil: {
    otel: "rsmq.queue.rate_limited_until",
    prometheus: "rsmq_queue_rate_limited_until_timestamp_seconds",
    instrument: "gauge",
    unit: "s",
    description:
      "When the block of the queue's receives (rateLimitQueue, a RateLimitError) ends (Unix time); absent when none is in force.",
    labels: [],
  },
  concurrencyLimit: {
    otel: "rsmq.queue.concurrency_limit",
    prometheus: "rsmq_queue_concurrency_limit",
    instrument: "gauge",
    unit: "{message}",
    description: "The queue's concurrency limit: most messages in flight at once with rsmq-next consumers; absent without one.",
    labels: [],
  },
  leased: {
    otel: "rsmq.queue.leased",
    prometheus: "rsmq_queue_leased",
    instrument: "gauge",
    unit: "{message}",
    description: "With a concurrency limit: the messages rsmq-next consumers hold now (live leases); absent without one.",
    labels: [],
  },
  consumers: {
    otel: "rsmq.queue.consumers",
    prometheus: "rsmq_queue_consumers",
    instrument: "gauge",
    unit: "{consumer}",
    description: "Workers consuming the queue: their heartbeat entries that have not expired (listConsumersAsync).",
    labels: [],
  },
  // The queue's schedules (docs/schedules.md): one series per schedule each, from the counts the
  // firing scripts keep in Redis, so every process's fires are counted once.
  scheduleSent: {
    otel: "rsmq.schedule.sent",
    prometheus: "rsmq_schedule_sent_total",
    instrument: "observableCounter",
    unit: "{message}",
    description: "Messages the schedule has sent, by every firing process together (its count in Redis).",
    labels: ["schedule"],
  },
  scheduleMissed: {
    otel: "rsmq.schedule.missed",
    prometheus: "rsmq_schedule_missed_total",
    instrument: "observableCounter",
    unit: "{slot}",
    description: "Slots the schedule did not fire because they were missed (its catchup policy, or older than its catchup window).",
    labels: ["schedule"],
  },
  scheduleOverlapped: {
    otel: "rsmq.schedule.overlapped",
    prometheus: "rsmq_schedule_overlapped_total",
    instrument: "observableCounter",
    unit: "{slot}",
    description: 'Slots overlap "skip" skipped because the message of the previous fire was still in the queue.',
    labels: ["schedule"],
  },
  scheduleNextRun: {
    otel: "rsmq.schedule.next_run",
    prometheus: "rsmq_schedule_next_run_timestamp_seconds",
    instrument: "gauge",
    unit: "s",
    description: "The schedule's next slot (Unix time); absent while it is paused or after it ended.",
    labels: ["schedule"],
  },
} as const satisfies Record<string, MetricDefinition>;
