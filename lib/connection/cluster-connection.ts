/**
 * A Redis Cluster connection: node-redis v4's cluster client, opened here from `cluster` options
 * (owned) or the caller's `createCluster` client (borrowed).
 *
 * node-redis follows MOVED and ASK itself, but learns a new topology only from a MOVED reply: a
 * command for a master that died waits for it, or fails, until that master is back. So every
 * command here retries, with backoff, on what resharding and failover answer (TRYAGAIN, ASK or
 * MOVED past node-redis' redirection limit, CLUSTERDOWN, a lost or refused connection), and when a
 * node is unreachable the topology is read afresh into a new cluster client. A retried command may
 * have run once already (its reply was lost with the node): the queue is at-least-once there,
 * never at-most-once.
 */
import { createCluster, ErrorReply, type RedisClusterOptions, type RedisClusterType } from "redis";
import type { ConnectionEvents } from "./connection";
import type { CommandSender } from "../scripts/script-runner";

/** How long one command keeps retrying through a failover or resharding. @default 30000 */
export const DEFAULT_CLUSTER_RETRY_MS = 30_000;

/** Replies a cluster gives while slots move or a master is replaced: retry after a pause. */
const TRANSIENT_REPLY = /^(TRYAGAIN|CLUSTERDOWN|MOVED|ASK|LOADING|MASTERDOWN|READONLY)\b/;
/** Of those, the ones that mean this client's idea of the topology is wrong. */
const STALE_TOPOLOGY_REPLY = /^(CLUSTERDOWN|MASTERDOWN|READONLY)\b/;
/** How long quitAsync() waits for QUIT before it disconnects. */
const QUIT_WAIT_MS = 1_000;
/** A fresh topology is read at most this often. */
const MIN_REFRESH_INTERVAL_MS = 250;

/**
 * Node settings for a cluster opened here: a command for a node that is down fails at once instead
 * of waiting in an offline queue (the retry above sends it where it now belongs), and a node that
 * stays unreachable is given up after a few tries (a fresh topology replaces it).
 */
const NODE_DEFAULTS = {
  disableOfflineQueue: true,
  socket: {
    connectTimeout: 2_000,
    reconnectStrategy: (retries: number): number | Error =>
      retries >= 5 ? new Error("rsmq-next: cluster node unreachable") : Math.min(50 * 2 ** retries, 500),
  },
};

type Cluster = RedisClusterType;

export function isClusterClient(client: unknown): client is Cluster {
  const candidate = client as Partial<Cluster> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.sendCommand === "function" &&
    typeof candidate.nodeClient === "function" &&
    typeof candidate.getSlotRandomNode === "function"
  );
}

export interface ClusterConnectionOptions {
  /** The caller's cluster client (borrowed), or undefined to open one from `cluster`. */
  client?: Cluster;
  cluster?: RedisClusterOptions;
  retryMs?: number;
}

export class ClusterConnection implements CommandSender {
  readonly cluster = true;
  /** Whether the first client was opened here (so it is closed here). */
  readonly owned: boolean;
  private current: Cluster;
  /** Clients opened here (the first, when owned, and every topology refresh). */
  private readonly opened = new Set<Cluster>();
  private ready: Promise<void>;
  private isConnected = false;
  private closed = false;
  private refreshing: Promise<void> | undefined;
  private lastRefreshAt = 0;
  /** Topology refreshes so far (each a new cluster client, perhaps reaching other servers). */
  private epoch = 0;
  private readonly retryMs: number;

  constructor(
    options: ClusterConnectionOptions,
    private readonly events: ConnectionEvents,
  ) {
    this.retryMs = options.retryMs ?? DEFAULT_CLUSTER_RETRY_MS;
    if (options.client) {
      this.current = options.client;
      this.owned = false;
    } else {
      if (!options.cluster) throw new TypeError("rsmq-next: cluster options need rootNodes");
      const cluster = options.cluster;
      this.current = createCluster({
        minimizeConnections: true,
        ...cluster,
        defaults: { ...NODE_DEFAULTS, ...cluster.defaults, socket: { ...NODE_DEFAULTS.socket, ...cluster.defaults?.socket } },
      }) as Cluster;
      this.opened.add(this.current);
      this.owned = true;
    }
    this.current.on("error", this.onError);
    this.ready = this.open(this.current);
    // Rejects only when closed before connecting; calls waiting on it get that rejection.
    this.ready.catch(() => undefined);
  }

  /** The cluster client in use now (a new one after a topology refresh). */
  get client(): Cluster {
    return this.current;
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

  /** Resolves once the cluster client has read the topology (at once, after that). */
  whenReady(): Promise<void> {
    return this.ready;
  }

  async sendCommand(args: string[], firstKey?: string, options: { sameConnection?: boolean } = {}): Promise<unknown> {
    const deadline = Date.now() + this.retryMs;
    for (let attempt = 0; ; attempt++) {
      await this.ready;
      const client = this.current;
      try {
        return await client.sendCommand(firstKey, false, args);
      } catch (error) {
        if (options.sameConnection || this.closed || !isTransient(error) || Date.now() >= deadline) throw error;
        if (staleTopology(error)) await this.refresh(client);
        await pause(Math.min(25 * 2 ** attempt, 500, Math.max(0, deadline - Date.now())));
      }
    }
  }

  async close(): Promise<"OK"> {
    this.closed = true;
    const wasConnected = this.isConnected;
    this.isConnected = false;
    await this.refreshing?.catch(() => undefined);
    this.current.off("error", this.onError);
    await Promise.allSettled([...this.opened].map(closeCluster));
    this.opened.clear();
    if (wasConnected) this.events.disconnect();
    return "OK";
  }

  private readonly onError = (error: Error): void => {
    this.events.error(error);
  };

  /** Connects, trying again until it works or the connection is closed. */
  private async open(client: Cluster): Promise<void> {
    for (;;) {
      // A client passed in open is the caller's to connect; one passed in closed is connected here.
      if (client.isOpen) break;
      if (this.closed) throw new Error("rsmq-next: the connection was closed before it opened");
      try {
        await client.connect();
        break;
      } catch (error) {
        if (this.closed) throw error;
        this.events.error(error as Error);
        await pause(500);
      }
    }
    if (this.closed) {
      // quitAsync() ran while the topology was being read: it found nothing open to close.
      await closeCluster(client);
      throw new Error("rsmq-next: the connection was closed before it opened");
    }
    this.isConnected = true;
    process.nextTick(() => this.events.connect());
  }

  /**
   * Reads the topology afresh into a new client (node-redis has no public way to make a client
   * re-read it), swaps it in, and closes the replaced one if it was opened here. Every node the old
   * client knew is a root node of the new one, so a dead seed node is no obstacle.
   */
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
    const known = [...failed.masters, ...failed.replicas].map(({ host, port }) => ({ socket: { host, port } }));
    const fresh = failed.duplicate({
      minimizeConnections: true,
      ...(known.length > 0 ? { rootNodes: known } : {}),
      ...(this.owned ? {} : { defaults: NODE_DEFAULTS }),
    }) as Cluster;
    fresh.on("error", this.onError);
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

/**
 * QUIT, unless it does not finish soon: node-redis v4 never settles a QUIT queued on a node
 * connection that is between reconnect attempts (a master that just died), so then disconnect.
 */
async function closeCluster(client: Cluster): Promise<void> {
  if (!client.isOpen) return;
  const quit = client.quit().then(
    () => true,
    () => false,
  );
  if (await Promise.race([quit, pause(QUIT_WAIT_MS).then(() => false)])) return;
  if (client.isOpen) await client.disconnect().catch(() => undefined);
}

function isTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // Anything but a server reply is the connection: refused, reset, closed, offline, timed out.
  if (!(error instanceof ErrorReply)) return true;
  return TRANSIENT_REPLY.test(error.message);
}

function staleTopology(error: unknown): boolean {
  return !(error instanceof ErrorReply) || STALE_TOPOLOGY_REPLY.test((error as Error).message);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
