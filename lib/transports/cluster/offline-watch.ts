/**
 * Gives up the calls of a Redis Cluster client whose slot's master is offline, for clients that
 * may hold such calls for ever (see OfflineWatch): a cluster client passed in keeps the caller's
 * node settings, node-redis' defaults included.
 */
import type { RedisClusterType } from "redis";
import { masterNotConnected } from "../../errors/connection-timeouts";
import { hashSlot } from "./hash-slot";
import { slotMasterAddress, slotMasterClientState } from "../node-redis/private-shapes";
import type { NodeClientState } from "../node-redis/private-shapes";

type Cluster = RedisClusterType;

/** How often calls in flight look whether their node went offline (giving up may come this much late). */
const OFFLINE_CHECK_MS = 100;

/** One call in flight, given up (and rejected) by the watch once its slot's master is offline. */
interface WatchedCall {
  readonly cluster: Cluster;
  readonly slot: number;
  readonly since: number;
  /** Only for a call to a node that was not connected yet (see OfflineWatch). */
  readonly controller: AbortController | undefined;
  readonly reject: (error: Error) => void;
}

/** Slots of keys seen lately (a queue's keys are few and recur): CRC16 of each key costs more than the lookup. */
const SLOT_CACHE_SIZE = 1_000;

/**
 * Gives up on calls whose node is offline, on cluster clients that may hold them (one passed in,
 * with the caller's settings: an offline queue, a reconnect that never gives up). node-redis v4
 * holds a call for a dead master in that node's offline queue, or waits to connect to it, for as
 * long as the master stays dead, and learns of the promoted replica only from a MOVED reply that
 * never comes. So a call whose slot's master is not connected (or still connecting after one
 * connect timeout) is rejected as a lost connection: the caller's retry reads the topology afresh
 * and sends it where the slot now is. One timer serves every call in flight.
 *
 * A call for a node not connected yet carries an AbortSignal, which node-redis honours for a call
 * not yet sent (it then never runs). A call for a connected node goes out at once (node-redis
 * writes it in the same turn) and carries none: a signal costs some 30 us of CPU and GC a call on
 * Node 20, more than the call. Such a call dies with its socket; only one that was held back by a
 * full socket buffer when the node died stays queued in node-redis, and runs if that node comes
 * back as its slot's master (a duplicate, as a retried call may be anyway).
 */
export class OfflineWatch {
  private readonly calls = new Set<WatchedCall>();
  private timer: NodeJS.Timeout | undefined;
  private readonly slots = new Map<string, number>();

  /** @param connectTimeoutMs how long a node's first connection may take before its calls are given up */
  constructor(private readonly connectTimeoutMs: number) {}

  /** Runs `send` (one attempt of a call for `key`), rejected `connectionTimeout` once the master of its slot is offline. */
  run<T>(cluster: Cluster, key: string, send: (signal?: AbortSignal) => Promise<T>): Promise<T> {
    const slot = this.slotOf(key);
    const since = Date.now();
    const client = slotMasterClientState(cluster, slot);
    if (masterOffline(client, since, this.connectTimeoutMs)) return Promise.reject(offlineMasterError(cluster, slot));
    const controller = isConnected(client) ? undefined : new AbortController();
    return new Promise<T>((resolve, reject) => {
      const call: WatchedCall = { cluster, slot, since, controller, reject };
      this.calls.add(call);
      this.timer ??= setInterval(this.check, OFFLINE_CHECK_MS);
      send(controller?.signal).then(
        (value) => {
          this.calls.delete(call);
          resolve(value);
        },
        (error: unknown) => {
          this.calls.delete(call);
          reject(error as Error);
        },
      );
    });
  }

  /** Stops watching (the connection is closing): calls in flight end as node-redis ends them. */
  close(): void {
    this.calls.clear();
    this.stop();
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Gives up the calls whose master is offline. Stops once a look finds no call in flight, rather
   * than when the last one ends: a timer set and cleared per call would cost more than the look.
   */
  private readonly check = (): void => {
    if (this.calls.size === 0) return this.stop();
    for (const call of this.calls) {
      const client = slotMasterClientState(call.cluster, call.slot);
      if (!masterOffline(client, call.since, this.connectTimeoutMs)) continue;
      this.calls.delete(call);
      call.controller?.abort();
      call.reject(offlineMasterError(call.cluster, call.slot));
    }
  };

  private slotOf(key: string): number {
    let slot = this.slots.get(key);
    if (slot === undefined) {
      if (this.slots.size >= SLOT_CACHE_SIZE) this.slots.clear();
      slot = hashSlot(key);
      this.slots.set(key, slot);
    }
    return slot;
  }
}

/**
 * Whether a slot's master is not connected: its node client is down (or reconnecting), or still
 * making its first connection `connectTimeoutMs` after `since`. A node with no client yet is
 * being opened by the call itself.
 */
function masterOffline(client: NodeClientState, since: number, connectTimeoutMs: number): boolean {
  if (client === undefined) return false;
  if (client instanceof Promise) return Date.now() - since >= connectTimeoutMs;
  return !client.isReady;
}

/** Whether a node's client is made and connected. */
function isConnected(client: NodeClientState): boolean {
  return client !== undefined && !(client instanceof Promise) && client.isReady;
}

function offlineMasterError(cluster: Cluster, slot: number): Error {
  return masterNotConnected(slot, slotMasterAddress(cluster, slot));
}
