/**
 * The public types. Names and shapes follow rsmq 0.12.4's own declarations, so code written
 * against `RedisSMQ.QueueMessage` and friends compiles unchanged.
 */
import type { RedisClientOptions, RedisClusterOptions } from "redis";

/** Node-style callback, as rsmq uses: `err` is null on success. */
export type Callback<T> = (err: any, response: T) => void;

/**
 * The constructor's options. Besides the keys below, any other top-level key (`db`, `url`, `tls`,
 * `path`, `connect_timeout`, `username`, `database`, ...) is handed to the Redis connection, as
 * rsmq 0.12.4 does.
 */
export interface ConstructorOptions {
  /** Redis host. @default "127.0.0.1" */
  host?: string;
  /** Redis port. @default 6379 */
  port?: number;
  /** Key prefix: keys are `<ns>:<qname>` and so on. Must match the rsmq clients sharing the queues. @default "rsmq" */
  ns?: string;
  /**
   * Publish the queue's message count on `<ns>:rt:<qname>` after every sendMessage, as rsmq does.
   * @default false
   */
  realtime?: boolean;
  /** Redis password. @default null */
  password?: string | null;
  /**
   * An existing connection. A node-redis v4 client stays the caller's: `quit()` leaves it open
   * (it is connected for you if it is not open yet). An ioredis 5 client (`new Redis(...)`, a
   * Sentinel-managed `new Redis({ sentinels, name })`, or `new Redis.Cluster(...)`) is used as it
   * is and stays the caller's too; one with `keyPrefix` is refused (use `ns`). A node-redis v3
   * client, which rsmq users pass today, cannot run the v4 protocol; its host, port, db and
   * password are reused for a new v4 connection that this instance owns, with a one-time warning.
   */
  client?: unknown;
  /**
   * Redis Cluster: node-redis v4 cluster options (`rootNodes`, `defaults`, ...), for a cluster
   * client this instance opens and owns. Passing a `createCluster` client as `client` works too.
   * In a cluster each queue's keys are `<ns>:{<qname>}` and `<ns>:{<qname>}:Q`, so queues spread
   * over the shards; a namespace that is itself a hash tag (`ns: "{myapp}"`) keeps rsmq's layout,
   * all on one shard.
   *
   * @example
   * new RedisSMQ({ cluster: { rootNodes: [{ url: "redis://10.0.0.1:7000" }, { url: "redis://10.0.0.2:7000" }] } })
   */
  cluster?: RedisClusterOptions;
  /**
   * Redis Cluster only: how long one call keeps retrying through a failover or a slot migration
   * (TRYAGAIN, CLUSTERDOWN, a master that is gone) before it rejects with the last error.
   * @default 30000
   */
  clusterRetryMs?: number;
  /**
   * After every write, wait until this many replicas confirm it (Redis WAIT on the connection that
   * ran the write), so an acknowledged call survives a failover. Each write then takes one more
   * round trip, and the connection waits for the replicas meanwhile. A call whose write is not
   * confirmed in `waitForReplicasMs`, or whose connection is lost before WAIT answers, rejects
   * with `replicationTimeout` (the write may stand on the master).
   * @default 0 (off)
   */
  waitForReplicas?: number;
  /** How long each WAIT of `waitForReplicas` may take. @default 1000 */
  waitForReplicasMs?: number;
  /**
   * Single server: how long a call waits for a connection to Redis (the server is down,
   * unreachable, or refuses the credentials) before it rejects with `connectionTimeout`, which names
   * host:port and the last connection error (ECONNREFUSED, ENOTFOUND, WRONGPASS, ...). Such a call
   * was never sent and never runs later. Long enough that a restart or a failover goes unnoticed
   * by callers; 0 waits for ever (node-redis' own behaviour).
   * @default 20000
   */
  offlineTimeoutMs?: number;
  /**
   * Single server: how long a call that went out waits for its reply. With none by then the link
   * is taken as silent (a half-open connection: a NAT or load balancer that forgot the flow, a
   * pulled cable), the call rejects with `connectionTimeout`, and a connection this instance
   * opened is dropped and opened again (a `client` passed in is left to its owner). The call may
   * have run on the server: a send so reported may have stored its message (at-least-once).
   * Must exceed the slowest script you expect; `waitForReplicasMs` is added for a WAIT. 0 turns it off.
   * @default 10000
   */
  commandTimeoutMs?: number;
  /**
   * Single server: how the realtime wake subscription's connection is checked. It hears nothing
   * while no one publishes, so it is PINGed; a PING unanswered within commandTimeoutMs marks it
   * silent (a half-open link), it is replaced, and sleeping Workers look for what they missed.
   *
   * Left out (the default), the check rides the Workers' polls: with a poll, one PING goes out
   * when the subscription has heard nothing (no message, no reply) for about that Worker's cap
   * (`maxIdleSleepMs`), once for however many Workers share it. So an idle Worker sends at most 2
   * commands per cap, its look and this PING (at the 30 s default: at most 240 an hour), and a
   * silent subscription is found within cap + commandTimeoutMs. A number is a fixed interval of
   * its own instead (5000: a PING every 5 s whatever the Workers do, 720 an hour), and 0 turns
   * the checks off.
   * @default undefined (ride the Workers' polls)
   */
  subscriberPingMs?: number;
  /**
   * Single server: how many command connections this instance runs its calls on. With one, the
   * client and Redis take turns (Redis idles while the client reads a batch of replies and writes
   * the next); with two, Redis runs one connection's calls while the client handles the other's,
   * which is what lifts calls made concurrently (many calls in flight on one instance).
   *
   * Left out: one connection, as rsmq 0.12.4 held, and a second one only under load: it opens when
   * a call leaves 4 calls in flight on the first, takes calls once it is up, and closes again once
   * 10 s went by in which it carried none (10 to 20 s after its last call). Calls made one at a
   * time, and one Worker (its receive, then its batch's deletes in one call, whatever its
   * `concurrency`), never open it.
   * The second connection emits no event (`connect`, `disconnect`, `error` tell of the first); if
   * it fails to open or is lost, it is closed and none opens for 10 s. `quit()` closes it.
   *
   * Given, that many are opened at once and kept (`1`: never more than one). A call goes on the
   * connection with the fewest calls in flight (the first when all are idle); calls made one
   * after another without an `await` between them go on the same connection, so they run in the
   * order they were made, also while a connection is being opened or closed. With a node-redis v4
   * `client` passed in, that client alone unless `connections` asks for more, which adds
   * duplicates of it that this instance owns and closes (a v3 client only lends its settings, so
   * the default applies). Redis Cluster and an ioredis client: only 1. An integer from 1 to 16.
   * The wake subscription (a Worker's, or a waiting receive's) is one more connection, apart.
   * @default 1, and a second one under load (just 1 with a node-redis v4 `client`)
   */
  connections?: number;
  /**
   * Connection options. node-redis v4 keys (`socket`, `database`, `username`, `disableOfflineQueue`,
   * ...) are followed. The v3-style keys (`url`, `host`, `port`, `path`, `db`, `password`, `user`,
   * `tls`, `connect_timeout`, `enable_offline_queue`) are ignored, as rsmq 0.12.4 ignored this whole
   * object, so an upgrade keeps the server and database the queues are in; a warning (code
   * `RSMQ_NEXT_NESTED_OPTIONS`) names both targets. Set `honorNestedOptions: true` to follow them.
   * Top-level keys win over these either way.
   */
  options?: Record<string, unknown> & Partial<RedisClientOptions>;
  /**
   * Follow the v3-style keys in `options` (`db`, `host`, `port`, `url`, ...), which rsmq 0.12.4
   * ignored. Only for code written for rsmq-next: with rsmq, those queues are where the top-level
   * keys point.
   * @default false
   */
  honorNestedOptions?: boolean;
  /**
   * OpenTelemetry spans and in-process metrics, through `@opentelemetry/api` (an optional peer
   * dependency: install it, and an SDK, to see anything). `true` records through the API's global
   * tracer provider, meter provider and propagator, which an application's SDK set-up registers;
   * an object chooses (see {@link TelemetryOptions}). The API is loaded only when this is on;
   * without it installed nothing is recorded and nothing fails (one process warning, code
   * `RSMQ_NEXT_TELEMETRY_UNAVAILABLE`); without an SDK registered when the instance is made, the
   * same (code `RSMQ_NEXT_TELEMETRY_NO_SDK`): start the SDK first. Left out or false, no span, no
   * metric, no extra command. See docs/telemetry.md.
   * @default false
   */
  telemetry?: boolean | TelemetryOptions;
  /**
   * Other node-redis v4 client options (`url`, `database`, `username`, ...) and v3-style ones (`db`,
   * `tls`, `path`, `connect_timeout`, ...) reach the Redis connection. Any other key is ignored, as
   * rsmq 0.12.4 did, with a warning once per key per process (code `RSMQ_NEXT_UNKNOWN_OPTION`).
   */
  [passThrough: string]: unknown;
}

/**
 * The object form of the constructor's `telemetry` option. The providers and the propagator are
 * typed by their shape, so these declarations need no `@opentelemetry/api`: pass the SDK's own
 * objects (`new BasicTracerProvider(...)`, `new MeterProvider(...)`, `new W3CTraceContextPropagator()`).
 *
 * @example
 * new RedisSMQ({ telemetry: { tracerProvider, meterProvider, processContext: "link" } });
 */
export interface TelemetryOptions {
  /** Where spans go (an OpenTelemetry `TracerProvider`). @default the API's global tracer provider */
  tracerProvider?: {
    /** The tracer rsmq-next starts its spans with (instrumentation scope `rsmq-next`). */
    getTracer(name: string, version?: string, options?: object): unknown;
  };
  /** Where metrics go (an OpenTelemetry `MeterProvider`). @default the API's global meter provider */
  meterProvider?: {
    /** The meter rsmq-next creates its instruments on (instrumentation scope `rsmq-next`). */
    getMeter(name: string, version?: string, options?: object): unknown;
  };
  /** How a message's trace context is written and read (an OpenTelemetry `TextMapPropagator`). @default the API's global propagator */
  propagator?: {
    /** Writes a context's fields into the carrier stored with a message. */
    inject(context: unknown, carrier: unknown, setter?: unknown): void;
    /** Reads a received message's carrier back into a context. */
    extract(context: unknown, carrier: unknown, getter?: unknown): unknown;
  };
  /** Record spans. @default true */
  tracing?: boolean;
  /** Record the in-process metrics. @default true */
  metrics?: boolean;
  /**
   * How a Worker's `process` span relates to the producer's `send` span: `"parent"` makes the
   * carried context its parent and adds a link to it too; `"link"` starts a new trace with only
   * the link. @default "parent"
   */
  processContext?: "parent" | "link";
  /**
   * sendMessage stores the trace context of its `send` span with the message (a hash field
   * `<id>:tp` beside the body, deleted with the message), so the Worker's `process` span can
   * continue the trace. Nothing is stored when the span is not sampled. @default true
   */
  carryContext?: boolean;
  /**
   * Also observe the queue-state metrics (`rsmq.queue.messages` by state, the age of the oldest
   * visible message, the next due time, rsmq's totalsent and totalrecv), read from Redis when the
   * meter collects: one round trip for every queue of the namespace on one server, none between
   * collections. `true` for every queue, or a list of queue names. Turn it on in one process (or
   * run `rsmq-next metrics`), not in every Worker: each would read the same state. @default false
   */
  queueState?: boolean | string[];
}

interface BaseOptions {
  /** The queue name: 1 to 160 of `[a-zA-Z0-9_-]`. `QUEUES` is reserved. */
  qname: string;
}

/**
 * For {@link RedisSMQ.createQueue}: the queue's name and its settings, which every message of the
 * queue follows unless a call overrides them.
 *
 * @example
 * await rsmq.createQueueAsync({ qname: "emails", vt: 60, delay: 0, maxsize: -1 });
 */
export interface CreateQueueOptions extends BaseOptions {
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
   * dead-letter queue; `""` (or absent) deletes them.
   */
  expireTo?: string;
  /**
   * Milliseconds a `dedupId` is remembered after its first send, 1 to 86400000 (24 h): the
   * queue's default for sends that give a `dedupId` and no `dedupWindowMs`.
   * @default 300000 (5 minutes, as SQS FIFO queues)
   */
  dedupWindowMs?: number;
}

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
 * For {@link RedisSMQ.setQueueAttributes}: the settings to change; at least one of them. A new
 * `vt` or `delay` applies to messages received or sent from then on.
 */
export interface SetQueueAttributesOptions extends BaseOptions {
  /** New visibility timeout in seconds, 0 to 9999999. */
  vt?: number;
  /** New delay for new messages in seconds, 0 to 9999999. */
  delay?: number;
  /** New maximum message length, 1024 to 65536, or -1 for unlimited. */
  maxsize?: number;
  /** New retention in seconds, 0 to 9999999; 0 keeps messages for ever. */
  retention?: number;
  /** New queue for expired messages; `""` deletes them from then on. */
  expireTo?: string;
  /** New default deduplication window in ms, 1 to 86400000; `0` goes back to 300000. */
  dedupWindowMs?: number;
}

/**
 * For {@link RedisSMQ.sendMessage}.
 *
 * @example
 * const id = await rsmq.sendMessageAsync({ qname: "emails", message: JSON.stringify({ to: "a@example.com" }), delay: 10 });
 */
export interface SendMessageOptions extends BaseOptions {
  /** The message body. */
  message: string;
  /** Seconds before the message becomes visible, 0 to 9999999. @default the queue's delay */
  delay?: number;
  /**
   * 0 to 9: a larger number is received first (RabbitMQ's convention), by every client, rsmq
   * 0.12.4 included. Only a message visible at once is reordered: a delayed one keeps its due
   * time. See docs/priorities.md. @default 0
   */
  priority?: number;
  /**
   * Sends at most once per window: a second send with the same id within `dedupWindowMs` stores
   * nothing and resolves the first message's id (even after it was received or deleted), and the
   * instance emits `duplicate`. A string of 1 to 128 characters, or `true` for the SHA-256 of the
   * body. See docs/idempotent-sends.md.
   */
  dedupId?: string | true;
  /** How long `dedupId` is remembered, in ms, 1 to 86400000. @default the queue's dedupWindowMs, else 300000 */
  dedupWindowMs?: number;
}

/** One message of {@link RedisSMQ.sendMessages}: the body and the per-message options of a send. */
export interface SendMessagesEntry {
  /** The message body. */
  message: string;
  /** Seconds before the message becomes visible, 0 to 9999999. @default the queue's delay */
  delay?: number;
  /** 0 to 9, larger first. @default 0 */
  priority?: number;
  /** As {@link SendMessageOptions.dedupId}. */
  dedupId?: string | true;
}

/** For {@link RedisSMQ.sendMessages}: up to 1000 messages to one queue in one call. */
export interface SendMessagesOptions extends BaseOptions {
  /** 1 to 1000 entries; every entry is checked before anything is written. */
  messages: SendMessagesEntry[];
  /** How long each entry's `dedupId` is remembered, in ms. @default the queue's dedupWindowMs, else 300000 */
  dedupWindowMs?: number;
}

/** What {@link RedisSMQ.sendMessages} did with one entry, in the order of the entries. */
export type SentEntry =
  | {
      /** The stored message's id; for a duplicate, the id of the message first sent with its dedupId. */
      id: string;
      /** Whether the entry was a duplicate within the window, so nothing was stored. */
      duplicate: boolean;
      /** Absent: the entry was not refused. */
      error?: undefined;
    }
  | {
      /** Absent: nothing was stored. */
      id?: undefined;
      /** Absent: the entry was refused before any dedupId was looked at. */
      duplicate?: undefined;
      /** Why this entry was refused (`messageTooLong`: longer than the queue's maxsize); nothing of it was stored. */
      error: Error;
    };

/** For {@link RedisSMQ.receiveMessage} and {@link RedisSMQ.receiveMessageOrNextDue}. */
export interface ReceiveMessageOptions extends BaseOptions {
  /** Seconds the received message stays invisible, 0 to 9999999. @default the queue's vt */
  vt?: number;
  /**
   * Long polling (SQS's WaitTimeSeconds): when nothing is due, wait up to this many ms, 0 to
   * 60000, and resolve as soon as a message is due; the usual empty answer when the wait ends.
   * See docs/api.md. @default 0 (answer at once, as rsmq 0.12.4)
   */
  waitMs?: number;
  /** Ends a wait early: the call then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** For {@link RedisSMQ.receiveMessages}: how many messages at most, besides the queue and vt. */
export interface ReceiveMessagesOptions extends ReceiveMessageOptions {
  /** Most messages to receive, 1 to 1000. */
  count: number;
}

/** For {@link RedisSMQ.popMessage}: the queue to receive and delete the next message from. */
export interface PopMessageOptions extends BaseOptions {}

/** For {@link RedisSMQ.deleteMessage}: the queue and the id {@link RedisSMQ.sendMessage} returned. */
export interface DeleteMessageOptions extends BaseOptions {
  /** The message id (32 characters). */
  id: string;
}

/** For {@link RedisSMQ.deleteMessages}: the queue and the ids to delete. */
export interface DeleteMessagesOptions extends BaseOptions {
  /** The message ids (32 characters each), at most 1000 of them; an empty list resolves `[]` with no round trip. */
  ids: string[];
}

/**
 * For {@link RedisSMQ.changeMessageVisibility}: hide a message for longer (a handler that needs
 * more time), or make it visible at once (`vt: 0`, to give it back).
 */
export interface ChangeMessageVisibilityOptions extends BaseOptions {
  /** The message id (32 characters). */
  id: string;
  /** Seconds from now until the message is visible again, 0 to 9999999. */
  vt: number;
}

/** For {@link RedisSMQ.changeMessagesVisibility}: up to 1000 ids of one queue and their new vt. */
export interface ChangeMessagesVisibilityOptions extends BaseOptions {
  /** The message ids (32 characters each), 1 to 1000 of them. */
  ids: string[];
  /** Seconds from now until the messages are visible again, 0 to 9999999. */
  vt: number;
}

/** A received message, as rsmq returns it. */
export interface QueueMessage {
  /** The message body. */
  message: string;
  /** The message id: 10 base36 characters of the send time in microseconds, then 22 random ones. */
  id: string;
  /** When the message was sent, epoch milliseconds with a fractional microsecond part. */
  sent: number;
  /** When the message was first received, epoch milliseconds. */
  fr: number;
  /** How many times the message has been received, this time included. */
  rc: number;
}

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
}

/**
 * What {@link RedisSMQ.receiveMessageOrNextDue} found: a message; or none due yet and when the
 * earliest one will be (delayed, retried or in flight); or an empty queue.
 */
export type ReceiveOrNextDue =
  | {
      /** A message was due: it is received (hidden for vt seconds), as receiveMessage would. */
      status: "received";
      /** The message received. */
      message: QueueMessage;
    }
  | {
      /** No message is due yet; one will be in `nextDueMs`. */
      status: "waiting";
      /** Milliseconds from now (server clock) until the earliest message becomes visible. */
      nextDueMs: number;
    }
  | {
      /** The queue holds no message at all. */
      status: "empty";
    };

/** What {@link RedisSMQ.receiveMessages} received. */
export interface ReceivedMessages {
  /** The messages received, in visibility order (FIFO among equally-due ones). */
  messages: QueueMessage[];
  /**
   * Present when fewer than `count` messages were due: milliseconds from now (server clock) until
   * the earliest remaining message becomes visible, or null when the queue is empty.
   */
  nextDueMs?: number | null;
}

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

/** A message looked at without receiving it. */
export interface PeekedMessage {
  /** The message id (32 characters). */
  id: string;
  /** The message body. */
  message: string;
  /** When it was first sent, epoch ms (from its id). */
  sent: number;
  /** Present for a dead-lettered message. */
  deadLetter?: DeadLetterInfo;
}

/**
 * Where a message is: `visible` (due: the next receive may get it), `inFlight` (received and
 * hidden for its vt: being handled, or waiting for a retry), `delayed` (sent with a delay, or
 * hidden without ever being received, and not due yet). The same split as `rsmq-next stats`.
 */
export type MessageState = "visible" | "inFlight" | "delayed";

/** A message looked at without receiving it, with where it is and when it is due. */
export interface MessageWithState extends PeekedMessage {
  /** Its state at the moment of the look, by the server's clock. */
  state: MessageState;
  /**
   * When it becomes visible (or became, for a visible one), epoch ms, server clock: its score, or
   * its send time for a message sent with a `priority`, whose score is decades back
   * (docs/priorities.md).
   */
  dueAt: number;
  /** How often it was received (rsmq's `rc`); 0 for never. */
  receiveCount: number;
}

/** For {@link RedisSMQ.peekMessages}: which queue, and how many of its first messages. */
export interface PeekMessagesOptions {
  /** The queue: any queue, a dead-letter queue included. */
  qname: string;
  /** How many of the first messages, 1 to 1000. @default 10 */
  count?: number;
}

/**
 * For {@link RedisSMQ.peekDeadLetters}: the same as {@link PeekMessagesOptions}.
 *
 * @deprecated Use {@link PeekMessagesOptions}, with {@link RedisSMQ.peekMessages}.
 */
export type PeekDeadLettersOptions = PeekMessagesOptions;

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
}

/** What {@link RedisSMQ.doctorAsync} looks at, and whether it repairs. */
export interface DoctorOptions {
  /**
   * Repair what can be repaired (see {@link DoctorFindingKind}), in chunks, each chunk one
   * script that checks again what it changes; safe while producers and consumers work. Without
   * it the doctor runs read-only scripts only (EVALSHA_RO) and writes nothing.
   * @default false
   */
  fix?: boolean;
  /**
   * Only these queues, and their entries in the registry. Without it: every queue of the
   * namespace, the registry's and those SCAN finds (on every master in Redis Cluster).
   * @default every queue of the namespace
   */
  qnames?: string[];
  /**
   * Fields or members one script looks at (the COUNT of its HSCAN or ZSCAN, and of SCAN), from 1
   * to 1000: each call blocks Redis for about that many small reads.
   * @default 200
   */
  chunk?: number;
}

/**
 * A kind of thing out of place, and what `fix` does to it:
 * - `fieldWithoutMessage`: a message's field `<id>:<suffix>` (`rc`, `fr`, `dl`, `tp`, or any
 *   other) whose message `<id>` is gone, as rsmq 0.12.4's delete and pop leave `:dl` and `:tp`.
 *   Fix: removed.
 * - `memberWithoutBody`: a message id in the sorted set with no body, which an rsmq 0.12.4
 *   receive hands to user code as `message: null`. Fix: removed from the set, with its fields.
 * - `bodyWithoutMember`: a body with no member, which no receive can reach. Fix: put back in
 *   the sorted set, visible now (kept and delivered, never deleted).
 * - `registryWithoutQueue`: a name in `<ns>:QUEUES` with no queue. Fix: unlisted.
 * - `queueNotInRegistry`: a queue `listQueues` does not show. Fix: listed.
 * - `missingSetting`: a queue hash lacking `vt`, `delay` or `maxsize` (rsmq 0.12.4 answers
 *   queueNotFound). Fix: rsmq's default (30, 0, 65536) is set.
 * - `invalidRetention`: `retention` that is not a whole number from 0 to 9999999. Fix: removed,
 *   so messages are kept for ever (as without retention; nothing is deleted on a guess).
 * - `invalidSetting`: `vt`, `delay` or `maxsize` that is not an integer in rsmq's range, or an
 *   `expireto` that is not a queue name or names the queue itself. Reported only: set it with
 *   setQueueAttributes.
 * - `unknownField`: a field of the queue hash that is neither a setting, a counter nor a
 *   message's. Reported only.
 * - `leftoverHash`: a `:Q` hash with none of `vt`, `delay` and `maxsize` (what a send racing a
 *   deleteQueue can leave). Reported only: createQueue makes it a queue again, DEL removes it.
 * - `expired`: messages older than their queue's retention, removed by the retention sweep that
 *   runs on each queue with `fix`.
 */
export type DoctorFindingKind =
  | "fieldWithoutMessage"
  | "memberWithoutBody"
  | "bodyWithoutMember"
  | "registryWithoutQueue"
  | "queueNotInRegistry"
  | "missingSetting"
  | "invalidRetention"
  | "invalidSetting"
  | "unknownField"
  | "leftoverHash"
  | "expired";

/** One thing out of place, as an example of its kind. */
export interface DoctorExample {
  /** The queue it was found in (for the registry's kinds: the name listed or missing). */
  qname: string;
  /** The field, member or setting (for the registry: the name). */
  item: string;
  /** What is wrong with it, where the kind does not say it all (a setting's value). */
  detail?: string;
}

/** Everything of one kind the doctor found, and what it repaired. */
export interface DoctorFinding {
  /** What is out of place, and what `fix` does to it: see {@link DoctorFindingKind}. */
  kind: DoctorFindingKind;
  /** How many were found. */
  found: number;
  /** How many the fix repaired (0 without `fix`). */
  fixed: number;
  /** How many are still out of place: found, less repaired, less those set right meanwhile by someone else. */
  left: number;
  /** Whether `fix` repairs this kind; the others need a person. */
  repairable: boolean;
  /** The first few found (at most 5). */
  examples: DoctorExample[];
}

/** What {@link RedisSMQ.doctorAsync} found in a namespace, and did. */
export interface DoctorReport {
  /** The namespace, without the trailing colon. */
  ns: string;
  /** Whether it repaired (the `fix` option). */
  fix: boolean;
  /** How many queues it looked at. */
  queues: number;
  /** One entry per kind found, in the order of {@link DoctorFindingKind}; empty when all is in place. */
  findings: DoctorFinding[];
  /** How many things are still out of place (the sum of `left`): 0 when all is in place now. */
  left: number;
}
