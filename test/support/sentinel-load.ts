/**
 * Load for the Sentinel failover suite: streams of numbered sends, each from a RedisSMQ on a
 * Sentinel-managed ioredis client of its own (with or without `waitForReplicas`, with or without
 * `failoverDetector`), to a queue of its own, consumed by a Worker (concurrency 4) on a shared
 * consumer instance, with a ledger per stream: what was acknowledged, handled, lost, duplicated.
 * The clients are ioredis 5 or ioredis 6 ones, as the load is told.
 */
import { Redis } from "ioredis";
import type { RedisOptions } from "ioredis";
import Redis6 from "ioredis6";
import RedisSMQ = require("../../lib/index");
import { DeliveryLedger, Producer } from "./cluster-tools";
import type { SentinelSetup } from "./sentinel";

const { Worker } = RedisSMQ;

/** Which ioredis the load's clients are. */
export type SentinelIoredis = "ioredis5" | "ioredis6";

/**
 * A Sentinel-managed ioredis client (ioredis 5 unless told) for the set-up, as a user would make
 * one (see docs/high-availability.md). An ioredis 6 one is typed as ioredis 5's: the options and
 * the members used here are the same.
 */
export function sentinelClient(setup: SentinelSetup, options: RedisOptions = {}, kind: SentinelIoredis = "ioredis5"): Redis {
  const settings: RedisOptions = {
    sentinels: setup.sentinels.map(({ host, port }) => ({ host, port })),
    name: setup.masterName,
    failoverDetector: true,
    maxRetriesPerRequest: null,
    ...options,
  };
  const client = kind === "ioredis6" ? (new Redis6(settings as Record<string, unknown>) as unknown as Redis) : new Redis(settings);
  client.on("error", () => undefined);
  return client;
}

export interface StreamOptions {
  /** The stream's name, its queue's name and its bodies' prefix. */
  name: string;
  /** `waitForReplicas` of the producer's RedisSMQ (0: off). */
  waitForReplicas: number;
  /** `failoverDetector` of the producer's ioredis client. */
  failoverDetector: boolean;
}

/** One producer, its queue, its Worker and its ledger. */
export class Stream {
  readonly ledger = new DeliveryLedger();
  readonly workerErrors: Error[] = [];
  /** Local epoch ms of each handler call, by message id (the first call). */
  readonly handledAt = new Map<string, number>();
  private producer: Producer | undefined;
  private worker: RedisSMQ.Worker | undefined;
  private readonly rsmq: RedisSMQ;

  constructor(
    readonly options: StreamOptions,
    private readonly load: SentinelLoad,
  ) {
    this.rsmq = load.instance(
      sentinelClient(load.setup, { failoverDetector: options.failoverDetector }, load.kind),
      options.waitForReplicas > 0 ? { waitForReplicas: options.waitForReplicas, waitForReplicasMs: 500 } : {},
    );
  }

  get qname(): string {
    return this.options.name;
  }

  /** The ioredis status of the producer's client ("ready" while connected). */
  get clientStatus(): string {
    return (this.rsmq.redis as unknown as Redis).status;
  }

  /** Creates the queue and starts its Worker and (unless `produce` is false) the producer. */
  async start(consumer: RedisSMQ, { produce = true }: { produce?: boolean } = {}): Promise<void> {
    await consumer.createQueueAsync({ qname: this.qname, vt: 3 });
    this.worker = new Worker(consumer, {
      qname: this.qname,
      concurrency: 4,
      maxIdleSleepMs: 1_000,
      stopTimeoutMs: 5_000,
      handler: (message) => {
        if (!this.handledAt.has(message.id)) this.handledAt.set(message.id, Date.now());
        this.ledger.handled(message);
      },
    });
    this.worker.on("error", (error) => this.workerErrors.push(error));
    this.worker.start();
    if (produce) this.producer = new Producer(this.rsmq, [this.qname], this.ledger, this.options.name);
  }

  /** Sends `count` at once (each held while the client is down, then all sent together); each counted in the ledger. */
  async burst(count: number): Promise<void> {
    await Promise.all(
      Array.from({ length: count }, async (_, n) => {
        const body = `${this.options.name}-burst-${n}`;
        this.ledger.attempts += 1;
        const startedAt = Date.now();
        try {
          this.ledger.acknowledged(await this.rsmq.sendMessageAsync({ qname: this.qname, message: body }), this.qname, body, startedAt);
        } catch (error) {
          this.ledger.sendErrors.push(error as Error);
        }
      }),
    );
  }

  /**
   * Reads the queue's attributes `count` times at once: a script that nothing else runs during an
   * outage, so each read held meets the promoted replica's NOSCRIPT. Resolves the errors.
   */
  async readBurst(count: number): Promise<Error[]> {
    const outcomes = await Promise.allSettled(
      Array.from({ length: count }, () => this.rsmq.getQueueAttributesAsync({ qname: this.qname })),
    );
    return outcomes.flatMap((outcome) => (outcome.status === "rejected" ? [outcome.reason as Error] : []));
  }

  stopProducing(): Promise<void> {
    return this.producer?.stop() ?? Promise.resolve();
  }

  async stopWorker(): Promise<void> {
    await this.worker?.stop();
  }

  /** ms from `from` to the first handler call of a message whose send started after `from`. */
  firstHandledAfter(from: number): number | undefined {
    let first: number | undefined;
    for (const [id, sent] of this.ledger.sent) {
      const at = this.handledAt.get(id);
      if (sent.startedAt >= from && at !== undefined && (first === undefined || at < first)) first = at;
    }
    return first === undefined ? undefined : first - from;
  }

  /** The longest time without a first handler call, ms, among calls from `from` on (the Worker's outage). */
  longestPauseAfter(from: number): number {
    const times = [from, ...[...this.handledAt.values()].filter((at) => at >= from)].sort((a, b) => a - b);
    let longest = 0;
    for (let i = 1; i < times.length; i++) longest = Math.max(longest, times[i] - times[i - 1]);
    return longest;
  }

  /** sent, acknowledged, handled, lost, duplicated, as one line of the test output. */
  figures(label: string, killedAt: number): string {
    const { ledger } = this;
    const handled = [...ledger.sent.keys()].filter((id) => ledger.calls.has(id)).length;
    const first = this.firstHandledAfter(killedAt);
    return (
      `${label} ${this.options.name}: sent ${ledger.attempts}, acknowledged ${ledger.sent.size}, handled ${handled}, ` +
      `lost ${ledger.lost().length}, duplicated ${ledger.duplicatedDeliveries() + ledger.unacknowledgedHandled()}, ` +
      `send errors ${ledger.sendErrors.length}; ms from the ${label} to the first handled message sent after it ${first ?? "-"}, ` +
      `longest pause in handling ${this.longestPauseAfter(killedAt)}`
    );
  }
}

/** The instances and clients of one run, closed together. */
export class SentinelLoad {
  private readonly instances: RedisSMQ[] = [];
  private readonly clients: Redis[] = [];
  readonly errors: Error[] = [];

  constructor(
    readonly setup: SentinelSetup,
    readonly ns: string,
    /** Which ioredis the streams' clients are. */
    readonly kind: SentinelIoredis = "ioredis5",
  ) {}

  /** A RedisSMQ on `client` in this run's namespace; its connection errors are kept in `errors`. */
  instance(client: Redis, options: Partial<RedisSMQ.ConstructorOptions> = {}): RedisSMQ {
    this.clients.push(client);
    const rsmq = new RedisSMQ({ client, ns: this.ns, ...options } as RedisSMQ.ConstructorOptions);
    rsmq.on("error", (error) => this.errors.push(error));
    this.instances.push(rsmq);
    return rsmq;
  }

  stream(options: StreamOptions): Stream {
    return new Stream(options, this);
  }

  async close(): Promise<void> {
    for (const rsmq of this.instances) await rsmq.quitAsync().catch(() => undefined);
    for (const client of this.clients) client.disconnect();
  }
}

/** How often each error message occurred, for the test output. */
export function errorCounts(errors: readonly Error[]): string {
  const counts = new Map<string, number>();
  for (const error of errors) {
    const key = `${error.name}: ${error.message.slice(0, 140)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return JSON.stringify(Object.fromEntries(counts));
}
