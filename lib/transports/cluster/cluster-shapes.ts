/**
 * Where a node-redis 5 or 6 cluster client (passed in as `client`) differs from node-redis 4's in
 * what ClusterTransport reads or calls; the shapes the three share are read in
 * node-redis/private-shapes.ts. Tested by test/transports/cluster/node-redis-5-6.test.ts.
 * - 5 and 6 close with close()/destroy() beside the deprecated quit()/disconnect().
 * - A call is given up with the `abortSignal` command option (4: `signal`).
 * - Their node clients speak RESP3 when asked to (6: by default), which a connection opened here
 *   for SSUBSCRIBE does not need: it speaks RESP2, and sends no HELLO.
 * - connect() marks the client open before it has read the slot map (4 too), but 5 and 6 then
 *   refuse calls where 4's fail on the empty map; 6 refuses them (ClientOfflineError) until
 *   connect() has ended, after its slot map is read and every master connected: a client passed
 *   in while it connects is waited for, not replaced.
 */
import type { RedisClusterType } from "redis";

type Cluster = RedisClusterType;

/** Whether `cluster` is a node-redis 5 or 6 cluster client (`close` and `destroy`, which 4 lacks). */
export function isNodeRedis5Or6Cluster(cluster: Cluster): boolean {
  const candidate = cluster as unknown as { close?: unknown; destroy?: unknown };
  return typeof candidate.close === "function" && typeof candidate.destroy === "function";
}

/** Whether `cluster` is a node-redis 6 cluster client (`getNodeClientForKey`, new in 6). */
function isNodeRedis6Cluster(cluster: Cluster): boolean {
  return (
    isNodeRedis5Or6Cluster(cluster) && typeof (cluster as unknown as { getNodeClientForKey?: unknown }).getNodeClientForKey === "function"
  );
}

/** The methods that close a cluster client of this major: the ones a close by the user may come through. */
export function closeMethodsOf(cluster: Cluster): ReadonlyArray<"quit" | "disconnect" | "close" | "destroy"> {
  return isNodeRedis5Or6Cluster(cluster) ? ["quit", "disconnect", "close", "destroy"] : ["quit", "disconnect"];
}

/** Command options that give a call up when `signal` aborts (before it is sent), as this major names the option. */
export function abortOption(
  cluster: Cluster,
  signal: AbortSignal | undefined,
): { signal?: AbortSignal; abortSignal?: AbortSignal } | undefined {
  if (signal === undefined) return undefined;
  return isNodeRedis5Or6Cluster(cluster) ? { abortSignal: signal } : { signal };
}

/** Whether the cluster client holds a slot map (its first topology read is done). */
export function slotMapRead(cluster: Cluster): boolean {
  return cluster.masters.length > 0;
}

/**
 * Whether the cluster client's connect() has ended (node-redis 6's `isReady`; 6 refuses calls
 * before, though its slot map is read as it starts connecting to the masters). Always true of
 * 4 and 5, which take calls once the map is read.
 */
export function connectEnded(cluster: Cluster): boolean {
  return !isNodeRedis6Cluster(cluster) || (cluster as unknown as { isReady?: unknown }).isReady !== false;
}

/**
 * Settings of a subscriber connection opened here over those of the cluster client's node client:
 * on node-redis 5 and 6, RESP2 (pub/sub alone needs no RESP3, and a RESP2 connection sends no
 * HELLO), so none of what needs RESP3 (a client-side cache, invalidations, maintenance
 * notifications). None on node-redis 4, which has no RESP option.
 */
export function subscriberOverrides(cluster: Cluster): Record<string, unknown> {
  if (!isNodeRedis5Or6Cluster(cluster)) return {};
  // 5 sends HELLO whenever RESP is set (RESP2 is its default), 6 unless it is 2 (3 is its default).
  const resp2 = isNodeRedis6Cluster(cluster) ? 2 : undefined;
  return { RESP: resp2, clientSideCache: undefined, emitInvalidate: undefined, maintNotifications: "disabled" };
}
