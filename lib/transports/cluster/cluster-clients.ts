/**
 * The node-redis cluster clients a ClusterTransport opens and closes: the first one, from
 * `cluster` options; a fresh one for each topology refresh; and a close that cannot hang.
 */
import { createCluster } from "redis";
import type { RedisClusterOptions, RedisClusterType } from "redis";
import { noSlotMapWithin } from "../../errors/connection-timeouts";
import { knownNodeAddresses } from "../node-redis/private-shapes";
import type { NodeOptions } from "../node-redis/private-shapes";
import { failFastDefaults, NODE_DEFAULTS } from "./node-options";

/** The least a call waits for the first slot map, whatever clusterRetryMs says (one node connect timeout). */
export const FIRST_READ_MIN_WAIT_MS = 2_000;
/** How long quitAsync() waits for QUIT before it disconnects. */
const QUIT_WAIT_MS = 1_000;

/**
 * A cluster client for `cluster` options, this library's node settings under the caller's.
 * `firstReadSignal` is read (net.connect's `signal`) as each node client is made: the first
 * topology read's clients get one, so that close() can destroy a socket a root node accepted and
 * never answered (connectTimeout does not bound the handshake); the clients made later, none.
 */
export function createOwnedCluster(cluster: RedisClusterOptions, firstReadSignal: () => AbortSignal | undefined): RedisClusterType {
  const socket = { ...NODE_DEFAULTS.socket, ...cluster.defaults?.socket };
  Object.defineProperty(socket, "signal", { get: firstReadSignal, enumerable: true, configurable: true });
  return createCluster({
    minimizeConnections: true,
    ...cluster,
    defaults: { ...NODE_DEFAULTS, ...cluster.defaults, socket },
  }) as RedisClusterType;
}

/**
 * A copy of `failed` that reads the topology afresh (node-redis has no public way to make a client
 * re-read it). Every node `failed` knew is a root node of the copy, so a dead seed node is no
 * obstacle. With `callerSettings` (of a client passed in), those node settings with fail-fast on
 * top replace its `defaults`; without, its `defaults` are kept as they are.
 */
export function refreshedCluster(failed: RedisClusterType, callerSettings: NodeOptions | undefined): RedisClusterType {
  const known = knownNodeAddresses(failed).map((address) => {
    const separator = address.lastIndexOf(":");
    return { socket: { host: address.slice(0, separator), port: Number(address.slice(separator + 1)) } };
  });
  return failed.duplicate({
    minimizeConnections: true,
    ...(known.length > 0 ? { rootNodes: known } : {}),
    ...(callerSettings === undefined ? {} : { defaults: failFastDefaults(callerSettings) }),
  }) as RedisClusterType;
}

/**
 * QUIT, unless it does not finish soon: node-redis v4 never settles a QUIT queued on a node
 * connection that is between reconnect attempts (a master that just died), so then disconnect.
 */
export async function closeCluster(client: RedisClusterType): Promise<void> {
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

/** What a call gets when the first slot map could not be read in time: from where, why, and that the call did not run. */
export function slotMapUnreadError(seeds: string, retryMs: number, causes: ReadonlyArray<Error | undefined>): Error {
  const errors = causes.filter((error): error is Error => error !== undefined);
  return noSlotMapWithin(seeds, Math.max(retryMs, FIRST_READ_MIN_WAIT_MS), errors);
}
