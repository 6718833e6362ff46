/**
 * The node settings of the cluster clients opened here: fail fast on a node that is down (no
 * offline queue, a reconnect that gives up), over the caller's settings when a client was passed in.
 */
import type { RedisClusterOptions } from "redis";
import type { NodeOptions } from "../node-redis/private-shapes";

/**
 * Node settings for a cluster opened here: a command for a node that is down fails at once instead
 * of waiting in an offline queue (the retry sends it where it now belongs), and a node that stays
 * unreachable is given up after a few tries (a fresh topology replaces it).
 */
export const NODE_DEFAULTS = {
  disableOfflineQueue: true,
  socket: {
    connectTimeout: 2_000,
    reconnectStrategy: (retries: number): number | Error =>
      retries >= 5 ? new Error("rsmq-next: cluster node unreachable") : Math.min(50 * 2 ** retries, 500),
  },
};

/**
 * A passed-in client's node settings for a client opened here: every setting of the caller's
 * (credentials, TLS, timeouts, name, ...), with this library's fail-fast behaviour on top, so a
 * refreshed client reaches the same nodes the same way and still gives up on a dead one.
 */
export function failFastDefaults(given: NodeOptions | undefined): NodeOptions {
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

/** "host:port, ..." of root nodes given as `{ url }` or `{ socket: { host, port } }`. */
export function describeRootNodes(rootNodes: RedisClusterOptions["rootNodes"]): string {
  const addresses = rootNodes.map((node) => {
    const { url, socket } = node as { url?: string; socket?: { host?: string; port?: number } };
    if (url) return new URL(url).host;
    return `${socket?.host ?? "127.0.0.1"}:${socket?.port ?? 6379}`;
  });
  return addresses.length === 0 ? "no root node" : addresses.join(", ");
}
