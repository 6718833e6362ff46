/**
 * The connection a user can reach (`rsmq.redis`, or the `client` they passed in) closed by them:
 * rsmq 0.12.4 code ends with `rsmq.redis.quit()`, and expects the process to exit then. Each
 * connection kind tells the instance through its `closed` event (see TransportEvents in transport.ts), and the
 * instance then closes everything else it opened and refuses further calls with the error below.
 *
 * How a close is told apart from an outage, per client:
 * - node-redis v4 client: its `end` event, which node-redis emits only from `quit()` and
 *   `disconnect()` (a lost connection emits `error` and `reconnecting` instead). This library
 *   disconnects clients of its own too (closing, replacing a silent link): those are skipped. An
 *   event rather than a wrapped `quit()`: the user's object stays as they made it, and every way
 *   of closing it (`quit`, `QUIT`, `disconnect`, legacyMode callbacks) ends in that one event.
 * - ioredis (standalone, Sentinel, Cluster): its `end` status, reached by `quit()`, `disconnect()`
 *   or a retry strategy that gave up; the client reconnects by itself no more in any of them.
 * - node-redis v4 cluster client: it emits no event when closed, and its node clients' `end`
 *   comes also from its own topology changes, so `quit()` and `disconnect()` are wrapped, on that
 *   one object (see watchClusterClose).
 */

/** Told when the user closed the connection they can reach; `how` names what was closed. */
export type ClosedByUser = (how: string) => void;

export const NODE_REDIS_CLOSED = "rsmq.redis (the node-redis client, the one passed in if one was) was closed with quit() or disconnect()";
export const IOREDIS_CLOSED = "the ioredis client passed in (rsmq.redis) ended: quit(), disconnect(), or its retryStrategy gave up";
export const CLUSTER_CLOSED = "the cluster client (rsmq.redis, or the one passed in) was closed with quit() or disconnect()";

/** What watchClusterClose wraps: the two ways to close a node-redis cluster client. */
interface Closable {
  quit(): Promise<unknown>;
  disconnect(): Promise<unknown>;
}

/**
 * Calls `closed` whenever `quit()` or `disconnect()` is called on this cluster client, right after
 * the call starts (the client refuses commands from then on). The wrappers are own, non-enumerable
 * properties of this one object that call the client's own methods unchanged; a `duplicate()`
 * of it does not get them.
 */
export function watchClusterClose(
  cluster: Closable,
  closed: () => void,
  methods: ReadonlyArray<string> = ["quit", "disconnect"], // node-redis 5 and 6: close and destroy too
): void {
  for (const name of methods) {
    const original = (cluster as unknown as Record<string, unknown>)[name];
    if (typeof original !== "function") continue;
    Object.defineProperty(cluster, name, {
      configurable: true,
      writable: true,
      enumerable: false,
      value: function (this: Closable, ...args: unknown[]): Promise<unknown> {
        try {
          return (original as (...given: unknown[]) => Promise<unknown>).apply(this, args);
        } finally {
          closed();
        }
      },
    });
  }
}
