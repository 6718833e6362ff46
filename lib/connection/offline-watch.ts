/**
 * Withdraws the calls of a Redis Cluster client whose slot's master is offline, for clients that
 * may hold such calls for ever (see OfflineWatch): a cluster client passed in keeps the caller's
 * node settings, node-redis' defaults included.
 */
import type { RedisClusterType } from "redis";
import { rsmqError } from "../errors";
import { hashSlot } from "./hash-slot";

type Cluster = RedisClusterType;

/** How often calls in flight look whether their node went offline (a withdrawal may come this much late). */
const OFFLINE_CHECK_MS = 100;

/** One call in flight, withdrawn (and rejected) by check() once its master is offline. */
interface WatchedCall {
  check(): void;
}

/**
 * Withdraws calls whose node is offline, on cluster clients that may hold them (one passed in, with
 * the caller's settings: an offline queue, a reconnect that never gives up). node-redis v4 holds a
 * call for a dead master in that node's offline queue, or waits to connect to it, for as long as
 * the master stays dead, and learns of the promoted replica only from a MOVED reply that never
 * comes. So a call whose slot's master is not connected (or still connecting after one connect
 * timeout) is withdrawn through its AbortSignal, which node-redis honours for a call not yet sent
 * (it then never runs), and rejected as a lost connection: the caller's retry reads the topology
 * afresh and sends it where the slot now is. One timer serves every call in flight.
 */
export class OfflineWatch {
  private readonly calls = new Set<WatchedCall>();
  private timer: NodeJS.Timeout | undefined;

  /** @param connectTimeoutMs how long a node's first connection may take before its calls are withdrawn */
  constructor(private readonly connectTimeoutMs: number) {}

  /** Runs `send` (one attempt of a call for `key`), withdrawn and rejected `connectionTimeout` once the master of its slot is offline. */
  run<T>(cluster: Cluster, key: string, send: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const slot = hashSlot(key);
    const since = Date.now();
    if (masterOffline(cluster, slot, since, this.connectTimeoutMs)) return Promise.reject(offlineMasterError(cluster, slot));
    const controller = new AbortController();
    return new Promise<T>((resolve, reject) => {
      const call: WatchedCall = {
        check: () => {
          if (!masterOffline(cluster, slot, since, this.connectTimeoutMs)) return;
          this.forget(call);
          controller.abort();
          reject(offlineMasterError(cluster, slot));
        },
      };
      this.watch(call);
      send(controller.signal).then(
        (value) => {
          this.forget(call);
          resolve(value);
        },
        (error: unknown) => {
          this.forget(call);
          reject(error);
        },
      );
    });
  }

  /** Stops watching (the connection is closing): calls in flight end as node-redis ends them. */
  close(): void {
    this.calls.clear();
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private watch(call: WatchedCall): void {
    this.calls.add(call);
    this.timer ??= setInterval(() => {
      for (const watched of [...this.calls]) watched.check();
    }, OFFLINE_CHECK_MS);
  }

  private forget(call: WatchedCall): void {
    this.calls.delete(call);
    if (this.calls.size > 0 || this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/**
 * Whether the master of `slot` in `cluster`'s map is not connected: its node client is down (or
 * reconnecting), or still making its first connection `connectTimeoutMs` after `since`. A node
 * with no client yet is being opened by the call itself.
 */
function masterOffline(cluster: Cluster, slot: number, since: number, connectTimeoutMs: number): boolean {
  const client = cluster.slots[slot]?.master?.client as { readonly isReady: boolean } | Promise<unknown> | undefined;
  if (client === undefined) return false;
  if (client instanceof Promise) return Date.now() - since >= connectTimeoutMs;
  return !client.isReady;
}

function offlineMasterError(cluster: Cluster, slot: number): Error {
  const master = cluster.slots[slot]?.master;
  const where = master ? ` (${master.host}:${master.port})` : "";
  return rsmqError(
    "connectionTimeout",
    `rsmq-next: the master of slot ${slot}${where} is not connected: the call was withdrawn (one not sent yet never runs) ` +
      "and retried on a slot map read afresh until clusterRetryMs ran out",
  );
}
