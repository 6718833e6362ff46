/**
 * A Redis Cluster connection: node-redis v4's cluster client, opened here from `cluster` options
 * (owned) or the caller's `createCluster` client (borrowed).
 *
 * node-redis follows MOVED and ASK itself, but learns a new topology only from a MOVED reply: a
 * command for a master that died waits for it, or fails, until that master is back. So every
 * command here retries, with backoff, on what resharding and failover answer (TRYAGAIN, ASK or
 * MOVED past node-redis' redirection limit, CLUSTERDOWN, a lost or refused connection), and when a
 * node is unreachable the topology is read afresh into a new cluster client. A call on a client
 * passed in is given up while its node is offline (offline-watch.ts): such a client may hold it
 * for as long as a dead master stays dead. A retried command may have run once already (its reply
 * was lost with the node): the queue is at-least-once there, never at-most-once. A write that
 * replicas must confirm (`waitForReplicas`) is routed here instead, so that its WAIT goes to the
 * node that ran it (see sendReplicated).
 */
import { createCluster, ErrorReply } from "redis";
import type { RedisClusterOptions, RedisClusterType } from "redis";
import { rsmqError } from "../../errors/rsmq-errors";
import { permissionError } from "../../errors/permission-errors";
import type { ConnectionEvents } from "../node-redis/single-connection";
import { CLUSTER_CLOSED, watchClusterClose } from "../closed-by-user";
import { hashSlot } from "./hash-slot";
import { awaitReplicas, unconfirmedWrite } from "../replica-acks";
import type { ReplicaAcks, ReplicatedWriter } from "../replica-acks";
import type { CommandSender } from "../command-sender";
import { OfflineWatch } from "./offline-watch";
import { HAND_OUT_AS_IS } from "../handover";

/** Replies a cluster gives while slots move or a master is replaced: retry after a pause. */
const TRANSIENT_REPLY = /^(TRYAGAIN|CLUSTERDOWN|MOVED|ASK|LOADING|MASTERDOWN|READONLY)\b/;
/** Of those, the ones that mean this client's idea of the topology is wrong. */
const STALE_TOPOLOGY_REPLY = /^(CLUSTERDOWN|MASTERDOWN|READONLY)\b/;
/** The least a call waits for the first slot map, whatever clusterRetryMs says (one node connect timeout). */
const FIRST_READ_MIN_WAIT_MS = 2_000;
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
/** One node's connection inside the cluster client. */
type NodeClient = { readonly isReady: boolean; sendCommand(args: string[], options?: { signal?: AbortSignal }): Promise<unknown> };
type NodeOptions = NonNullable<RedisClusterOptions["defaults"]>;

/**
 * The node settings of a cluster client passed in: `duplicate()` replaces `defaults` as a whole,
 * and node-redis keeps a cluster's own options private, so they are read back from a node client
 * it made (its `defaults` plus that node's address). Undefined when it has made none yet. Read
 * from the caller's client only: a client opened here with minimizeConnections may have no node
 * client at all in the middle of a failover (its one for the dead master failed), and settings read
 * from one opened here would be ours, not the caller's.
 */
function callerNodeOptions(cluster: Cluster): NodeOptions | undefined {
  for (const node of [...cluster.masters, ...cluster.replicas]) {
    const client = node.client as { options?: NodeOptions } | Promise<unknown> | undefined;
    if (client && !(client instanceof Promise) && client.options) return client.options;
  }
  return undefined;
}

/**
 * A passed-in client's node settings for a client opened here: every setting of the caller's
 * (credentials, TLS, timeouts, name, ...), with this library's fail-fast behaviour on top, so a
 * refreshed client reaches the same nodes the same way and still gives up on a dead one.
 */
function failFastDefaults(given: NodeOptions | undefined): NodeOptions {
  // The address and role are the one node's, not defaults; each node client gets its own.
  const { readonly: _readonly, url: _url, socket, ...rest } = (given ?? {}) as NodeOptions & { readonly?: boolean; url?: string };
  const { host: _host, port: _port, ...socketRest } = (socket ?? {}) as Record<string, unknown>;
  return {
    ...rest,
    disableOfflineQueue: NODE_DEFAULTS.disableOfflineQueue,
    socket: {
      connectTimeout: NODE_DEFAULTS.socket.connectTimeout,
      ...socketRest,
      reconnectStrategy: NODE_DEFAULTS.socket.reconnectStrategy,
    },
  } as NodeOptions;
}

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

/**
 * The caller's cluster client (borrowed), or cluster options to open one from (owned); `retryMs` is
 * how long one command keeps retrying through a failover or resharding (`clusterRetryMs`).
 */
export type ClusterConnectionOptions =
  { readonly client: Cluster; readonly retryMs: number } | { readonly cluster: RedisClusterOptions; readonly retryMs: number };

export class ClusterConnection implements CommandSender, ReplicatedWriter {
  readonly cluster = true;
  readonly handover = HAND_OUT_AS_IS;
  /** Whether the first client was opened here (so it is closed here). */
  readonly owned: boolean;
  private current: Cluster;
  /** Clients opened here (the first, when owned, and every topology refresh). */
  private readonly opened = new Set<Cluster>();
  /**
   * The cluster client passed in, if any: where the caller's node settings are read, and the
   * user's to close even after a refresh replaced it here.
   */
  private readonly given: Cluster | undefined;
  /** The caller's node settings, once read from `given` (see callerNodeOptions). */
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
    options: ClusterConnectionOptions,
    private readonly events: ConnectionEvents,
  ) {
    this.retryMs = options.retryMs;
    if ("client" in options) {
      this.seeds = "the cluster client passed in";
      this.current = options.client;
      this.given = options.client;
      this.owned = false;
    } else {
      const cluster = options.cluster;
      this.seeds = describeRootNodes(cluster.rootNodes);
      const socket = { ...NODE_DEFAULTS.socket, ...cluster.defaults?.socket };
      // Read (net.connect's `signal`) as each node client is made: the first topology read's
      // clients get it, so that close() can destroy a socket a root node accepted and never
      // answered (connectTimeout does not bound the handshake); the clients made later, none.
      Object.defineProperty(socket, "signal", {
        get: () => (this.isConnected ? undefined : this.opening.signal),
        enumerable: true,
        configurable: true,
      });
      this.current = createCluster({
        minimizeConnections: true,
        ...cluster,
        defaults: { ...NODE_DEFAULTS, ...cluster.defaults, socket },
      }) as Cluster;
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
      timer = setTimeout(() => reject(this.notOpenedError()), Math.max(FIRST_READ_MIN_WAIT_MS, deadline - Date.now()));
    });
    try {
      await Promise.race([this.ready, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  private notOpenedError(): Error {
    const errors = [this.openError, this.nodeError].filter((error): error is Error => error !== undefined);
    const cause = errors.length > 0 ? `: ${[...new Set(errors.map((error) => error.message))].join("; last node error: ")}` : "";
    return rsmqError(
      "connectionTimeout",
      `rsmq-next: could not read the Redis Cluster's slot map from ${this.seeds} within clusterRetryMs ` +
        `(${Math.max(this.retryMs, FIRST_READ_MIN_WAIT_MS)} ms)${cause}. ` +
        "The call was not run. Check that the nodes are up and the addresses and credentials are right, or raise clusterRetryMs.",
    );
  }

  /** Resolves once the cluster client has read the topology (at once, after that). */
  whenReady(): Promise<void> {
    return this.ready;
  }

  async sendCommand(args: string[], firstKey?: string): Promise<unknown> {
    const deadline = Date.now() + this.retryMs;
    for (let attempt = 0; ; attempt++) {
      await this.readyBy(deadline);
      const client = this.current;
      try {
        // A call with no key goes to any node, and fails over to another by itself.
        if (this.failFast.has(client) || firstKey === undefined) return await client.sendCommand(firstKey, false, args);
        return await this.offlineWatch.run(client, firstKey, (signal) => client.sendCommand(firstKey, false, args, { signal }));
      } catch (error) {
        if (this.closed || !isTransient(error) || Date.now() >= deadline) throw error;
        if (staleTopology(error)) await this.refresh(client);
        await pause(backoffMs(attempt, deadline));
      }
    }
  }

  /**
   * A write, then WAIT on the node connection that ran it. node-redis follows ASK and MOVED out of
   * sight, and would route the WAIT by its slot map: to a migration's source when the write ran on
   * its target. So the write is sent here to the slot's master in the map, and on ASK to the target
   * (ASKING first), and WAIT goes to whichever ran it. Until the write runs, it is retried like any
   * command (MOVED here means the map is behind: it is read afresh); once it ran, never.
   */
  async sendReplicated(args: string[], key: string | undefined, acks: ReplicaAcks): Promise<unknown> {
    if (key === undefined) throw new TypeError("rsmq-next: a replicated write needs a key to route it");
    const deadline = Date.now() + this.retryMs;
    for (let attempt = 0; ; attempt++) {
      await this.readyBy(deadline);
      const client = this.current;
      let ran: { reply: unknown; node: NodeClient };
      try {
        ran = this.failFast.has(client)
          ? await sendToSlotOwner(client, args, key)
          : await this.offlineWatch.run(client, key, (signal) => sendToSlotOwner(client, args, key, signal));
      } catch (error) {
        if (this.closed || !isTransient(error) || Date.now() >= deadline) throw error;
        if (staleTopology(error) || isMoved(error)) await this.refresh(client);
        await pause(backoffMs(attempt, deadline));
        continue;
      }
      // The reply has just arrived, with no turn of the event loop since: a node client that is
      // ready still has the socket that carried the write (a reconnect, or a refresh closing this
      // client, would take one), so WAIT goes out on that very connection.
      const { reply, node } = ran;
      if (!node.isReady) throw unconfirmedWrite(acks, "the connection to the node that ran it was lost");
      await awaitReplicas((wait) => node.sendCommand(wait), acks);
      return reply;
    }
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
    watchClusterClose(client, () => {
      if (this.closed || (client !== this.current && client !== this.given)) return;
      this.events.closed?.(CLUSTER_CLOSED);
    });
  }

  private readonly onError = (error: Error): void => {
    // Before the first topology read, the nodes' own errors (ECONNREFUSED, WRONGPASS) say why.
    if (!this.isConnected) this.nodeError = error;
    // A user without CLUSTER SLOTS is refused as the client opens, before any operation could name it.
    this.events.error(permissionError(error, { operation: "Opening the cluster connection (reading the slot map)" }) as Error);
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
        this.openError = error as Error;
        this.events.error(permissionError(error, { operation: "Opening the cluster connection (reading the slot map)" }) as Error);
        await pause(500);
      }
    }
    if (this.closed) {
      // quitAsync() ran while the topology was being read: it found nothing open to close.
      await closeCluster(client);
      throw new Error("rsmq-next: the connection was closed before it opened");
    }
    this.isConnected = true;
    // Read now, while the caller's client has its node clients (each one made with its settings).
    if (this.given) this.callerSettings ??= callerNodeOptions(this.given);
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
    // A master serving several slot ranges is listed once per range.
    const addresses = new Set([...failed.masters, ...failed.replicas].map(({ host, port }) => `${host}:${port}`));
    const known = [...addresses].map((address) => {
      const separator = address.lastIndexOf(":");
      return { socket: { host: address.slice(0, separator), port: Number(address.slice(separator + 1)) } };
    });
    if (this.given) this.callerSettings ??= callerNodeOptions(this.given);
    // Opened here from `cluster` options, the node settings already are what this library wants.
    // Of a client passed in, the caller's settings with fail-fast on top; when they cannot be read
    // (it never made a node client), its `defaults` are kept as they are (credentials, TLS) and
    // its calls watched for an offline node as the caller's own client's are.
    const failFast = this.owned || this.callerSettings !== undefined;
    const fresh = failed.duplicate({
      minimizeConnections: true,
      ...(known.length > 0 ? { rootNodes: known } : {}),
      ...(this.owned || this.callerSettings === undefined ? {} : { defaults: failFastDefaults(this.callerSettings) }),
    }) as Cluster;
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

/**
 * Sends a command to the master of its slot in `cluster`'s map, following ASK to the migration
 * target; resolves the reply and the node client that ran it. Other replies, MOVED included, are
 * the caller's to handle.
 */
async function sendToSlotOwner(
  cluster: Cluster,
  args: string[],
  key: string,
  signal?: AbortSignal,
): Promise<{ reply: unknown; node: NodeClient }> {
  const owner = cluster.slots[hashSlot(key)]?.master;
  // Not an error reply: the topology is read afresh and the write retried.
  if (!owner) throw new Error(`rsmq-next: no master known for slot ${hashSlot(key)}`);
  const node = (await cluster.nodeClient(owner)) as NodeClient;
  try {
    return { reply: await node.sendCommand(args, { signal }), node };
  } catch (error) {
    const address = askedAddress(error);
    if (address === undefined) throw error;
    const target = cluster.nodeByAddress.get(address);
    if (!target) throw new Error(`rsmq-next: ASK names ${address}, a node this client does not know yet`);
    const asked = (await cluster.nodeClient(target)) as NodeClient;
    // Queued together in one turn, so no other command of this process can come between them
    // (ASKING lets only the next command in).
    const [, reply] = await Promise.all([asked.sendCommand(["ASKING"]), asked.sendCommand(args)]);
    return { reply, node: asked };
  }
}

/** "host:port" of an `ASK <slot> <host:port>` reply, else undefined. */
function askedAddress(error: unknown): string | undefined {
  if (!(error instanceof ErrorReply) || !error.message.startsWith("ASK ")) return undefined;
  return error.message.slice(error.message.lastIndexOf(" ") + 1);
}

function isMoved(error: unknown): boolean {
  return error instanceof ErrorReply && error.message.startsWith("MOVED ");
}

function backoffMs(attempt: number, deadline: number): number {
  return Math.min(25 * 2 ** attempt, 500, Math.max(0, deadline - Date.now()));
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
  // The bound's timer is cleared once QUIT is answered: left pending, it kept a process that had
  // quit alive for QUIT_WAIT_MS (every one-shot CLI command on a cluster took a second longer).
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), QUIT_WAIT_MS)));
  const answered = await Promise.race([quit, bound]);
  clearTimeout(timer);
  if (answered) return;
  if (client.isOpen) await client.disconnect().catch(() => undefined);
}

/** "host:port, ..." of root nodes given as `{ url }` or `{ socket: { host, port } }`. */
function describeRootNodes(rootNodes: RedisClusterOptions["rootNodes"]): string {
  const addresses = rootNodes.map((node) => {
    const { url, socket } = node as { url?: string; socket?: { host?: string; port?: number } };
    if (url) return new URL(url).host;
    return `${socket?.host ?? "127.0.0.1"}:${socket?.port ?? 6379}`;
  });
  return addresses.length === 0 ? "no root node" : addresses.join(", ");
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
