/**
 * A Redis Cluster transport on node-redis v4's cluster client, opened here from `cluster` options
 * (owned) or the caller's `createCluster` client (borrowed).
 * - node-redis follows MOVED and ASK, but learns a new topology only from a MOVED reply: a command
 *   for a dead master waits or fails until it is back. So every command retries what resharding
 *   and failover answer (cluster-retry.ts), and an unreachable node has the topology read afresh
 *   into a new cluster client (cluster-clients.ts).
 * - A call on a client passed in is given up while its node is offline (offline-watch.ts): such a
 *   client may hold it for as long as a dead master stays dead.
 * - A retried command may have run once already (its reply was lost with the node): at-least-once.
 * - A write that replicas must confirm goes to its slot's owner here (replicated-write.ts).
 */
import type { RedisClusterOptions, RedisClusterType } from "redis";
import { explainRefusal } from "../../errors/refusals";
import { CLUSTER_CLOSED, watchClusterClose } from "../closed-by-user";
import type { ReplicaAcks, Subscriber, Transport, TransportEvents } from "../transport";
import { OfflineWatch } from "./offline-watch";
import { ClusterSubscriber } from "./cluster-subscriber";
import { isMoved, pause, retrying, staleTopology } from "./cluster-retry";
import { describeRootNodes, NODE_DEFAULTS } from "./node-options";
import { confirmOnNode, sendToSlotOwner } from "./replicated-write";
import { closeCluster, createOwnedCluster, FIRST_READ_MIN_WAIT_MS, refreshedCluster, slotMapUnreadError } from "./cluster-clients";
import { nodeOptionsOf } from "../node-redis/private-shapes";
import { abortOption, closeMethodsOf, connectEnded, isNodeRedis5Or6Cluster, slotMapRead } from "./cluster-shapes";
import type { NodeOptions } from "../node-redis/private-shapes";
import { HAND_OUT_AS_IS } from "../handover";

/** How often a client passed in while it connects is looked at until it holds its slot map. */
const SLOT_MAP_LOOK_MS = 10;
/**
 * How long a node-redis 6 client passed in while it connects is waited for once its slot map is
 * read (see slotMapOf): its masters' connections take milliseconds, a master it cannot reach for ever.
 */
const CONNECT_END_WAIT_MS = FIRST_READ_MIN_WAIT_MS;

/** A fresh topology is read at most this often. */
const MIN_REFRESH_INTERVAL_MS = 250;

type Cluster = RedisClusterType;

/**
 * The caller's cluster client (borrowed), or cluster options to open one from (owned); `retryMs` is
 * how long one command keeps retrying through a failover or resharding (`clusterRetryMs`).
 */
export type ClusterTransportOptions =
  { readonly client: Cluster; readonly retryMs: number } | { readonly cluster: RedisClusterOptions; readonly retryMs: number };

export class ClusterTransport implements Transport {
  readonly cluster = true;
  readonly handover = HAND_OUT_AS_IS;
  /** Whether the first client was opened here (so it is closed here). */
  readonly owned: boolean;
  private current: Cluster;
  /** Clients opened here (the first, when owned, and every topology refresh). */
  private readonly opened = new Set<Cluster>();
  /** The cluster client passed in, if any: where the caller's node settings are read, and the user's to close even once replaced here. */
  private readonly given: Cluster | undefined;
  /** What `client` gives for good, whatever client calls go through: a node-redis 5 or 6 client passed in. */
  private readonly exposed: Cluster | undefined;
  /**
   * The caller's node settings, read from `given` (`duplicate()` replaces `defaults` as a whole);
   * never from a client opened here: with minimizeConnections it may have no node client at all
   * mid-failover, and its settings would be ours.
   */
  private callerSettings: NodeOptions | undefined;
  /** Clients whose node settings fail fast (no offline queue, a reconnect that gives up): their calls need no OfflineWatch. */
  private readonly failFast = new WeakSet<Cluster>();
  private readonly offlineWatch = new OfflineWatch(NODE_DEFAULTS.socket.connectTimeout);
  private ready: Promise<void>;
  private isConnected = false;
  private closed = false;
  private refreshing: Promise<void> | undefined;
  private lastRefreshAt = 0;
  /** Topology refreshes so far (each a new cluster client, perhaps reaching other servers). */
  private epoch = 0;
  private readonly retryMs: number;
  /** Where the first topology read goes, for errors: the root nodes given, or "the cluster client passed in". */
  private readonly seeds: string;
  /** Destroys the sockets of the first topology read, when closed before it finished. */
  private readonly opening = new AbortController();
  /** Why the first topology read failed last, until it succeeds, and the last node error before it. */
  private openError: Error | undefined;
  private nodeError: Error | undefined;

  constructor(
    options: ClusterTransportOptions,
    private readonly events: TransportEvents,
  ) {
    this.retryMs = options.retryMs;
    if ("client" in options) {
      this.seeds = "the cluster client passed in";
      this.current = options.client;
      this.given = options.client;
      this.exposed = isNodeRedis5Or6Cluster(options.client) ? options.client : undefined;
      this.owned = false;
    } else {
      this.exposed = undefined;
      this.seeds = describeRootNodes(options.cluster.rootNodes);
      this.current = createOwnedCluster(options.cluster, () => (this.isConnected ? undefined : this.opening.signal));
      this.opened.add(this.current);
      this.failFast.add(this.current);
      this.owned = true;
    }
    this.watchUserClose(this.current);
    this.current.on("error", this.onError);
    this.ready = this.open(this.current);
    // Rejects only when closed before connecting; calls waiting on it get that rejection.
    this.ready.catch(() => undefined);
  }

  /**
   * `rsmq.redis`: a node-redis 5 or 6 client passed in, always; otherwise the cluster client in use
   * now (node-redis 4's passed in until the first topology refresh, then the refreshed copy).
   */
  get client(): Cluster {
    return this.exposed ?? this.current;
  }

  get connected(): boolean {
    return this.isConnected;
  }

  /**
   * Changes with each topology refresh. A node that reconnects inside the same cluster client is
   * not seen here; the scripts' fallback for servers before Redis 7 then holds until the next refresh.
   */
  get connectionEpoch(): number {
    return this.epoch;
  }

  /**
   * Waits for the first topology read until `deadline` (clusterRetryMs after the call), then
   * rejects `connectionTimeout`: a call never waits for ever on a cluster that cannot be reached.
   * Nothing was sent, so the call never runs later.
   */
  private async readyBy(deadline: number): Promise<void> {
    if (this.isConnected) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      // Never shorter than one connect attempt: clusterRetryMs 0 (no retries) must not fail a call
      // made just after construction, while the first attempt is still under way.
      const unread = (): void => reject(slotMapUnreadError(this.seeds, this.retryMs, [this.openError, this.nodeError]));
      timer = setTimeout(unread, Math.max(FIRST_READ_MIN_WAIT_MS, deadline - Date.now()));
    });
    try {
      await Promise.race([this.ready, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Resolves once the cluster client has read the topology (at once, after that). */
  whenReady(): Promise<void> {
    return this.ready;
  }

  /** SSUBSCRIBE (SUBSCRIBE before Redis 7) on the node that owns each channel's slot, found in this connection's slot map. */
  openSubscriber(onError: (error: Error) => void): Subscriber {
    return new ClusterSubscriber(this, onError);
  }

  sendCommand(args: string[], firstKey?: string): Promise<unknown> {
    return this.retried(staleTopology, (client) => {
      // A call with no key goes to any node, and fails over to another by itself.
      if (this.failFast.has(client) || firstKey === undefined) return client.sendCommand(firstKey, false, args);
      return this.offlineWatch.run(client, firstKey, (signal) => client.sendCommand(firstKey, false, args, abortOption(client, signal)));
    });
  }

  /**
   * A write, then WAIT on the node connection that ran it (see replicated-write.ts). Until the
   * write runs, it is retried like any command (MOVED here means the map is behind: it is read
   * afresh); once it ran, never.
   */
  async sendReplicated(args: string[], key: string | undefined, acks: ReplicaAcks): Promise<unknown> {
    if (key === undefined) throw new TypeError("rsmq-next: a replicated write needs a key to route it");
    const ran = await this.retried(
      (error) => staleTopology(error) || isMoved(error),
      (client) =>
        this.failFast.has(client)
          ? sendToSlotOwner(client, args, key)
          : this.offlineWatch.run(client, key, (signal) => sendToSlotOwner(client, args, key, signal)),
    );
    return confirmOnNode(ran, acks);
  }

  /**
   * Runs `attempt` on the cluster client in use, retried through a failover or resharding until
   * clusterRetryMs is up (see cluster-retry.ts); a failure that `refreshOn` names has the topology
   * read afresh before the next attempt.
   */
  private retried<T>(refreshOn: (error: unknown) => boolean, attempt: (client: Cluster) => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.retryMs;
    let client = this.current;
    return retrying(deadline, {
      ready: async () => {
        await this.readyBy(deadline);
        client = this.current;
      },
      attempt: () => attempt(client),
      recover: async (error) => {
        if (this.closed) return false;
        if (refreshOn(error)) await this.refresh(client);
        return true;
      },
    });
  }

  async close(): Promise<"OK"> {
    this.closed = true;
    this.offlineWatch.close();
    const wasConnected = this.isConnected;
    this.isConnected = false;
    await this.refreshing?.catch(() => undefined);
    this.current.off("error", this.onError);
    if (!wasConnected) {
      // The aborted read reports an error: no news, but one with no listener would crash the process.
      this.current.on("error", () => undefined);
      this.opening.abort();
    }
    await Promise.allSettled([...this.opened].map(closeCluster));
    this.opened.clear();
    if (wasConnected) this.events.disconnect();
    return "OK";
  }

  /**
   * A quit() or disconnect() of the client in use (rsmq.redis) or of the one passed in is the
   * user's; this library's own (close(), a replaced client) are not.
   */
  private watchUserClose(client: Cluster): void {
    watchClusterClose(
      client,
      () => {
        if (this.closed || (client !== this.current && client !== this.given)) return;
        this.events.closed?.(CLUSTER_CLOSED);
      },
      closeMethodsOf(client),
    );
  }

  private readonly onError = (error: Error): void => {
    // Before the first topology read, the nodes' own errors (ECONNREFUSED, WRONGPASS) say why.
    if (!this.isConnected) this.nodeError = error;
    // A user without CLUSTER SLOTS is refused as the client opens, before any operation could name it.
    this.events.error(explainRefusal(error, { operation: "Opening the cluster connection (reading the slot map)" }));
  };

  /** Connects, trying again until it works or the connection is closed. */
  private async open(client: Cluster): Promise<void> {
    let connectedHere = false;
    for (;;) {
      // A client passed in open is the caller's to connect; one passed in closed is connected here.
      if (client.isOpen && !isNodeRedis5Or6Cluster(client)) break;
      if (client.isOpen && (await this.slotMapOf(client))) break;
      if (this.closed) throw new Error("rsmq-next: the connection was closed before it opened");
      if (client.isOpen) continue;
      try {
        await client.connect();
        connectedHere = true;
        break;
      } catch (error) {
        if (this.closed) throw error;
        this.openError = error as Error;
        this.events.error(explainRefusal(error as Error, { operation: "Opening the cluster connection (reading the slot map)" }));
        await pause(500);
      }
    }
    if (this.closed) {
      // quitAsync() ran while the topology was being read: it found nothing open to close. (A
      // client passed in open stays the caller's.)
      if (connectedHere) await closeCluster(client);
      throw new Error("rsmq-next: the connection was closed before it opened");
    }
    this.isConnected = true;
    // Read now, while the caller's client has its node clients (each one made with its settings).
    if (this.given) this.callerSettings ??= nodeOptionsOf(this.given);
    process.nextTick(() => this.events.connect());
  }

  /**
   * Whether a node-redis 5 or 6 client passed in open holds its slot map, waiting while it reads it,
   * and while a node-redis 6 one connects to its masters (its calls are refused until then, and
   * would have it replaced: see CONNECT_END_WAIT_MS); false once it is no longer
   * open (its connect failed: it is connected here) or this connection is closed.
   */
  private async slotMapOf(client: Cluster): Promise<boolean> {
    let mapReadAt: number | undefined;
    while (client.isOpen && !this.closed) {
      if (slotMapRead(client)) {
        mapReadAt ??= Date.now();
        // node-redis 6 takes calls once connected to every master; one that cannot be reached
        // keeps it from ever taking them, and then a call has it replaced by a copy that can.
        if (connectEnded(client) || Date.now() - mapReadAt >= CONNECT_END_WAIT_MS) break;
      }
      await pause(SLOT_MAP_LOOK_MS);
    }
    return client.isOpen && !this.closed;
  }

  /** Reads the topology afresh into a new client (see refreshedCluster), swaps it in, and closes the replaced one if it was opened here. */
  private refresh(failed: Cluster): Promise<void> {
    if (failed !== this.current || this.closed) return Promise.resolve();
    if (this.refreshing) return this.refreshing;
    if (Date.now() - this.lastRefreshAt < MIN_REFRESH_INTERVAL_MS) return Promise.resolve();
    this.refreshing = this.replace(failed).finally(() => {
      this.lastRefreshAt = Date.now();
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async replace(failed: Cluster): Promise<void> {
    if (this.given) this.callerSettings ??= nodeOptionsOf(this.given);
    // Opened here from `cluster` options, the node settings already are what this library wants.
    // Of a client passed in, the caller's settings with fail-fast on top; when they cannot be read
    // (it never made a node client), its `defaults` are kept as they are (credentials, TLS) and
    // its calls watched for an offline node as the caller's own client's are.
    const failFast = this.owned || this.callerSettings !== undefined;
    const fresh = refreshedCluster(failed, this.owned ? undefined : this.callerSettings);
    if (failFast) this.failFast.add(fresh);
    fresh.on("error", this.onError);
    this.watchUserClose(fresh);
    try {
      await fresh.connect();
    } catch (error) {
      fresh.off("error", this.onError);
      this.events.error(error as Error);
      return;
    }
    if (this.closed) {
      await fresh.disconnect().catch(() => undefined);
      return;
    }
    this.opened.add(fresh);
    this.current = fresh;
    this.epoch += 1;
    failed.off("error", this.onError);
    if (this.opened.delete(failed)) {
      // Commands still waiting on the replaced client fail, and retry on the fresh one.
      failed.disconnect().catch(() => undefined);
    }
  }
}
