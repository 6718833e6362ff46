/**
 * Every read of node-redis v4's undocumented shapes, in one module: what its clients and cluster
 * clients expose without documenting it (a client's `options` and `v4`, a cluster client's slot
 * map, node list, node clients and their options). On a node-redis 4.x upgrade, check this file
 * and run its tests: test/transports/node-redis/private-shapes.test.ts (single server) and
 * test/transports/cluster/node-redis-private-shapes.test.ts (cluster target).
 * - Each accessor returns what the library needs, never node-redis' object graph.
 * - Behaviours (not shapes) relied on elsewhere, each tested where it is used: a client's `end`
 *   only from quit()/disconnect() (closed-by-user.ts), net.connect reading `socket.signal`
 *   (client-closer.ts, cluster-transport.ts), `reconnecting` before each new socket
 *   (client-closer.ts), `sharded-channel-moved` (cluster/cluster-subscriber.ts).
 */
import type { RedisClientOptions, RedisClientType, RedisClusterOptions, RedisClusterType } from "redis";

type Cluster = RedisClusterType;
/** A node's settings as a cluster client passes them to each node client it makes. */
export type NodeOptions = NonNullable<RedisClusterOptions["defaults"]>;
/** A node client of a cluster client: made, or still being made. */
export type NodeClientOrPromise = RedisClientType | Promise<RedisClientType>;
/** A node's client as the cluster client's map holds it: none yet, being connected, or made. */
export type NodeClientState = { readonly isReady: boolean } | Promise<unknown> | undefined;

/** The options a client was made with (node-redis keeps them, undocumented, as `options`). */
function optionsOf(client: RedisClientType): RedisClientOptions | undefined {
  return (client as { options?: RedisClientOptions }).options;
}

/** The socket options a client was made with (host, port, TLS, timeouts): a copy given them connects the same way. */
export function socketOptionsOf(client: RedisClientType): RedisClientOptions["socket"] {
  return optionsOf(client)?.socket;
}

/** "host:port" (or the socket path) of the server a client connects to, for error messages. */
export function serverAddressOf(client: RedisClientType): string {
  // node-redis parses a `url` into `socket` as it makes the client.
  const socket = (socketOptionsOf(client) ?? {}) as Record<string, unknown>;
  if (typeof socket.path === "string") return socket.path;
  return `${String(socket.host ?? "localhost")}:${String(socket.port ?? 6379)}`;
}

/** A client's promise API: itself, or in node-redis' legacyMode its `v4` face. */
export function promiseApiOf(client: RedisClientType): RedisClientType {
  return optionsOf(client)?.legacyMode ? (client as unknown as { v4: RedisClientType }).v4 : client;
}

/**
 * The protocol a client speaks: node-redis 5 and 6 take a `RESP` option (2 or 3), whose default is
 * 2 in node-redis 5 and 3 in node-redis 6, told apart by a member only node-redis 6 has (its
 * internal `_keyPrefix`). node-redis 4 speaks RESP2 only.
 */
export function respOf(client: RedisClientType): 2 | 3 {
  const given = (optionsOf(client) as { RESP?: unknown } | undefined)?.RESP;
  if (given === 2 || given === 3) return given;
  return "_keyPrefix" in client ? 3 : 2;
}

/** The empty type mapping each call of a node-redis 5/6 client carries (see callOptionsFor). */
const NO_TYPE_MAPPING = Object.freeze({});

/** The options of one call, given its AbortSignal (or none). */
export type CallOptionsOf = (signal: AbortSignal | undefined) => { signal?: AbortSignal };

/**
 * How a client's calls carry their options, by its major: the AbortSignal that withdraws a call
 * from the offline queue (node-redis 4 reads it as `signal`, 5 and 6 as `abortSignal`), and on 5
 * and 6 an empty type mapping, so that replies decode as node-redis' defaults whatever mapping the
 * caller's client carries (`withTypeMapping`, `commandOptions`): the call's own options win. Chosen
 * once per client (5 and 6 have `withTypeMapping`, 4 has not), so a v4 call allocates no more than before.
 */
export function callOptionsFor(client: RedisClientType): CallOptionsOf {
  if (typeof (client as { withTypeMapping?: unknown }).withTypeMapping !== "function") return (signal) => ({ signal });
  return (signal) => ({ abortSignal: signal, typeMapping: NO_TYPE_MAPPING }) as { signal?: AbortSignal };
}

/** A copy of a client (node-redis' `duplicate`), `overrides` on top of its options. */
export function duplicateClient(client: RedisClientType, overrides: RedisClientOptions): RedisClientType {
  return client.duplicate(overrides as Parameters<RedisClientType["duplicate"]>[0]) as RedisClientType;
}

/** Whether `client` is a node-redis v4 cluster client (`createCluster`), by its shape. */
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

function address(node: { host: string; port: number }): string {
  return `${node.host}:${node.port}`;
}

/** "host:port" of the master of `slot` in the cluster client's slot map; undefined when it knows none. */
export function slotMasterAddress(cluster: Cluster, slot: number): string | undefined {
  const master = cluster.slots[slot]?.master;
  return master ? address(master) : undefined;
}

/** "host:port" of every node the cluster client knows, masters first, each once (a master serving several ranges is listed once per range). */
export function knownNodeAddresses(cluster: Cluster): string[] {
  return [...new Set([...cluster.masters, ...cluster.replicas].map(address))];
}

/** The client of the master of `slot` (made now when there is none yet); undefined when the map names no master. */
export function slotMasterClient(cluster: Cluster, slot: number): NodeClientOrPromise | undefined {
  const master = cluster.slots[slot]?.master;
  return master ? (cluster.nodeClient(master) as NodeClientOrPromise) : undefined;
}

/** The client of the node at "host:port" (made now when there is none yet); undefined for a node the cluster client does not know. */
export function nodeClientAt(cluster: Cluster, nodeAddress: string): NodeClientOrPromise | undefined {
  const node = cluster.nodeByAddress.get(nodeAddress);
  return node ? (cluster.nodeClient(node) as NodeClientOrPromise) : undefined;
}

/** The client of the first master: one made with the cluster client's node settings (credentials, TLS). */
export function firstMasterClient(cluster: Cluster): NodeClientOrPromise {
  return cluster.nodeClient(cluster.masters[0]) as NodeClientOrPromise;
}

/**
 * The slot's master's client as the map holds it now, without making one. node-redis 4 holds a
 * promise there while the client connects; 5 and 6 hold the client, and the promise beside it
 * (`connectPromise`), which is what is given then.
 */
export function slotMasterClientState(cluster: Cluster, slot: number): NodeClientState {
  const master = cluster.slots[slot]?.master as { client?: unknown; connectPromise?: Promise<unknown> } | undefined;
  return (master?.connectPromise ?? master?.client) as NodeClientState;
}

/**
 * The node settings of a cluster client, read back from a node client it made (node-redis keeps
 * a cluster's own options private): its `defaults` plus that node's address and role. Undefined
 * when it has made none yet.
 */
export function nodeOptionsOf(cluster: Cluster): NodeOptions | undefined {
  for (const node of [...cluster.masters, ...cluster.replicas]) {
    const client = node.client as { options?: NodeOptions } | Promise<unknown> | undefined;
    if (client && !(client instanceof Promise) && client.options) return client.options;
  }
  return undefined;
}
