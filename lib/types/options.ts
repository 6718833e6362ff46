/**
 * The constructor's options, as rsmq 0.12.4 declares them plus rsmq-next's own, each with its
 * `@default` (test/docs/option-defaults.test.ts holds them to the options table).
 */
import type { RedisClientOptions, RedisClusterOptions } from "redis";

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
   * rsmq-next consumers in any process wake on it; without it they wake on `wakeConsumers`.
   * @default false
   */
  realtime?: boolean;
  /**
   * Without `realtime`: a send (single, batch or idempotent) that finds no message of its queue
   * visible and none due before its own publishes the message's id on `<ns>:wake:<qname>`, in the
   * same script call, so sleeping rsmq-next Workers and waiting receives in every process look at
   * once instead of at their cap. A steady stream publishes nothing (consumers are busy); rsmq's
   * realtime subscribers never see it. `false` publishes nothing: consumers in other processes
   * then hear this instance's sends at their next look (at most `maxIdleSleepMs`). An ACL user
   * needs the channel (`&<ns>:wake:*`) and PUBLISH (SPUBLISH in Redis Cluster), or the refusal is
   * told once per channel and the messages are stored all the same (docs/acl.md).
   * @default true
   */
  wakeConsumers?: boolean;
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
  /**
   * Label the wait histogram (`rsmq.message.wait.duration`: how long messages waited to be
   * received) by tenant, as attribute `messaging.rsmq.tenant`: the first `tenantLabels` distinct
   * tenants (the `tenant` attribute, docs/attributes.md) this instance receives get their own
   * value, every later one `other`, messages without a tenant `none`. Each value is a series of
   * its own in a metrics backend, so the number is the bound: 0 to 1000. See docs/telemetry.md.
   * @default 0 (no tenant attribute)
   */
  tenantLabels?: number;
}
