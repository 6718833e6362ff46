/**
 * Picks the connection for a RedisSMQ instance: Redis Cluster when given a node-redis v4 cluster
 * client or `cluster` options, one server otherwise.
 */
import type { RedisClientType, RedisClusterOptions, RedisClusterType } from "redis";
import { toClusterOptions } from "./client-options";
import { ClusterConnection, isClusterClient } from "./cluster-connection";
import { Connection, type ConnectionEvents } from "./connection";
import { honorsNestedOptions } from "./nested-options";
import { linkBoundsOf, subscriberPingMsOf } from "./link-watchdog";
import { warnUnknownKeys } from "./unknown-keys";
import type { ReplicatedWriter } from "./replica-acks";
import type { CommandSender } from "./command-sender";
import { ClientSubscriber, ClusterSubscriber, type Subscriber } from "./subscribers";

/** What RedisSMQ needs of either connection. */
export interface QueueConnection extends CommandSender, ReplicatedWriter {
  readonly cluster: boolean;
  readonly client: RedisClientType | RedisClusterType;
  readonly connected: boolean;
  close(): Promise<"OK">;
}

/** Whether these options ask for Redis Cluster (known before connecting, so bad input opens nothing). */
export function wantsCluster(options: Record<string, unknown>): boolean {
  return isClusterClient(options.client) || (options.cluster !== undefined && options.cluster !== null);
}

export function openConnection(options: Record<string, unknown>, events: ConnectionEvents): QueueConnection {
  warnUnknownKeys(options);
  honorsNestedOptions(options); // bad input is reported before anything opens
  // Checked on every target, before anything opens; a cluster is bounded by clusterRetryMs instead.
  linkBoundsOf(options);
  subscriberPingMsOf(options);
  const given = options.client;
  if (isClusterClient(given)) return new ClusterConnection({ client: given, retryMs: retryMsOf(options) }, events);
  if (options.cluster !== undefined && options.cluster !== null) {
    if (typeof options.cluster !== "object" || !Array.isArray((options.cluster as RedisClusterOptions).rootNodes)) {
      throw new TypeError("rsmq-next: `cluster` must be node-redis cluster options with a `rootNodes` array");
    }
    return new ClusterConnection({ cluster: toClusterOptions(options), retryMs: retryMsOf(options) }, events);
  }
  return new Connection(options, events);
}

function retryMsOf(options: Record<string, unknown>): number | undefined {
  const value = options.clusterRetryMs;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new TypeError(`rsmq-next: \`clusterRetryMs\` must be a number of ms >= 0, got ${String(value)}`);
  }
  return value;
}

/** A subscriber on a copy of the connection's current client, for realtime wakes. */
export function openSubscriber(connection: QueueConnection, onError: (error: Error) => void): Subscriber {
  return connection.cluster
    ? new ClusterSubscriber(connection as ClusterConnection, onError)
    : new ClientSubscriber(connection.client as RedisClientType, onError, (connection as Connection).bounds, (connection as Connection).subscriberPingMs);
}
