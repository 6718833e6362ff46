/**
 * The connection behind a RedisSMQ instance given an ioredis 5 or 6 client (standalone, Sentinel-managed
 * or Cluster): always borrowed, never closed here. ioredis routes each command itself (in a
 * cluster by the command's first key, following MOVED and ASK), reconnects on its own and, under
 * Sentinel, asks the sentinels for the primary on every reconnect. What is added here: every call
 * bounded by offlineTimeoutMs and commandTimeoutMs (LinkWatchdog: a call made while the client is
 * not ready is held here and sent once it is, so one that waited too long never runs), connection
 * state as `connect`, `disconnect` and `error` events, and WAIT on the connection that wrote.
 */
import { IOREDIS_CLOSED } from "../closed-by-user";
import type { AnyIoredis } from "./client-shape";
import { ioredisLink, translateIoredisError } from "./ioredis-link";
import { openIoredisSubscriber } from "./wake-subscriber";
import { LinkWatchdog } from "../watchdog/link-watchdog";
import type { LinkBounds } from "../watchdog/link-watchdog";
import { awaitReplicas } from "../replica-acks";
import { watchReady } from "../ready-watch";
import type { ReadyWatch } from "../ready-watch";
import type { ReplicaAcks, Subscriber, Transport, TransportEvents } from "../transport";
import { HAND_OUT_AS_IS } from "../handover";

export class IoredisTransport implements Transport {
  readonly cluster: boolean;
  readonly handover = HAND_OUT_AS_IS;
  /**
   * False on a cluster client with `scaleReads` other than "master": it would send EVALSHA_RO to
   * replicas, and every call of this library is meant for the master (see docs/cluster.md).
   */
  readonly readOnlyScriptCommands: boolean;
  /** Up or not, told as `connect` and `disconnect`, with the reconnects counted. */
  private readonly state: ReadyWatch;
  private readonly watchdog: LinkWatchdog;
  private readonly detach: () => void;

  constructor(
    /** The caller's client, used as it is and never closed here. */
    readonly client: AnyIoredis,
    /** offlineTimeoutMs and commandTimeoutMs, for the subscriber connection too. */
    private readonly bounds: LinkBounds,
    /** How often the subscriber connection is PINGed (undefined: with the Workers' polls; 0: never). */
    private readonly subscriberPingMs: number | undefined,
    private readonly events: TransportEvents,
  ) {
    this.cluster = client.isCluster === true;
    this.readOnlyScriptCommands = client.isCluster !== true || (client.options.scaleReads ?? "master") === "master";
    this.watchdog = new LinkWatchdog(ioredisLink(client), bounds);
    this.state = watchReady(events, client.status === "ready");
    this.detach = this.listen();
    // A client made with `lazyConnect` connects on its first command; here calls wait for `ready`.
    if (client.status === "wait") client.connect().catch(() => undefined);
  }

  get connected(): boolean {
    return this.state.connected;
  }

  /** Counts reconnects: after one, the server may be another (a replica promoted by Sentinel, a restart). */
  get connectionEpoch(): number {
    return this.state.epoch;
  }

  sendCommand(args: string[], _firstKey?: string): Promise<unknown> {
    const [command, ...rest] = args;
    return this.bounded(() => this.client.call(command, ...rest));
  }

  /**
   * The write and its WAIT in one pipeline: one round trip, on one connection (in a cluster, the
   * write's node, as a pipeline goes to the node of its keys and WAIT has none).
   */
  async sendReplicated(args: string[], _key: string | undefined, acks: ReplicaAcks): Promise<unknown> {
    const [command, ...rest] = args;
    const wait = ["WAIT", String(acks.replicas), String(acks.timeoutMs)];
    // WAIT waits on the server by design, up to waitForReplicasMs: that is not silence.
    const results = await this.bounded(
      () =>
        this.client
          .pipeline()
          .call(command, ...rest)
          .call(wait[0], ...wait.slice(1))
          .exec(),
      acks.timeoutMs,
    );
    const [write, confirmed] = results ?? [];
    if (!write || !confirmed) throw new Error("rsmq-next: the ioredis pipeline of a write and its WAIT returned no results");
    if (write[0]) throw translateIoredisError(write[0], this.client);
    await awaitReplicas(
      () => (confirmed[0] ? Promise.reject(translateIoredisError(confirmed[0], this.client)) : Promise.resolve(confirmed[1])),
      acks,
    );
    return write[1];
  }

  /** SUBSCRIBE on the caller's connection when it speaks RESP3, else on a copy (SSUBSCRIBE in a cluster): see wake-subscriber.ts. */
  openSubscriber(onError: (error: Error) => void): Subscriber {
    return openIoredisSubscriber(this.client, onError, this.bounds, this.subscriberPingMs);
  }

  /** Leaves the caller's client open: only stops listening to it. */
  close(): Promise<"OK"> {
    this.watchdog.close();
    this.detach();
    this.state.stop();
    return Promise.resolve("OK");
  }

  /**
   * A call within the bounds. Sent at once, for ioredis to refuse, on a client closed for good and
   * on one made with `enableOfflineQueue: false` that is not ready: its owner asked for calls to
   * fail fast rather than wait for a connection.
   */
  private async bounded<T>(send: () => Promise<T>, extraMs = 0): Promise<T> {
    const failFast = this.client.status === "end" || (this.client.status !== "ready" && this.client.options.enableOfflineQueue === false);
    try {
      return await (failFast ? send() : this.watchdog.call(send, extraMs));
    } catch (error) {
      throw translateIoredisError(error, this.client);
    }
  }

  private listen(): () => void {
    const onReady = (): void => this.state.ready();
    const onLost = (): void => this.state.lost();
    const onError = (error: Error): void => this.events.error(error);
    // `end`: the client reconnects by itself no more (quit(), disconnect(), or its retryStrategy gave
    // up). Never this library's doing: close() here only stops listening.
    const onEnd = (): void => {
      this.events.closed?.(IOREDIS_CLOSED);
      onLost();
    };
    this.client.on("ready", onReady);
    this.client.on("close", onLost);
    this.client.on("end", onEnd);
    this.client.on("error", onError);
    return () => {
      this.client.off("ready", onReady);
      this.client.off("close", onLost);
      this.client.off("end", onEnd);
      this.client.off("error", onError);
    };
  }
}
