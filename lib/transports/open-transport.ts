/**
 * Picks the connection for a RedisSMQ instance: the caller's ioredis client (standalone, Sentinel
 * or Cluster) as it is; Redis Cluster when given a node-redis v4 cluster client or `cluster`
 * options; one server otherwise, on one connection or on a pool of them (opened at once, or
 * growing from one under load).
 */
import type { RedisClientType, RedisClusterType } from "redis";
import { toClusterOptions } from "../options/connection/client-options";
import { ClusterConnection, isClusterClient } from "./cluster/cluster-connection";
import { Connection } from "./node-redis/single-connection";
import type { ConnectionEvents } from "./node-redis/single-connection";
import { ConnectionPool } from "./node-redis/connection-pool";
import type { ConnectionSettings } from "../options/connection/connection-settings";
import type { ReplicatedWriter } from "./replica-acks";
import type { CommandSender } from "./command-sender";
import type { Handover } from "./handover";
import { isIoredis } from "./ioredis/client-shape";
import type { AnyIoredis } from "./ioredis/client-shape";
import { IoredisConnection } from "./ioredis/ioredis-connection";
import { IoredisSubscriber } from "./ioredis/ioredis-subscriber";
import { adviseOnSentinelClient } from "./ioredis/sentinel-advice";
import { ClientSubscriber, ClusterSubscriber } from "./node-redis/subscribers";
import type { Subscriber } from "./node-redis/subscribers";

/** What RedisSMQ needs of either connection. */
export interface QueueConnection extends CommandSender, ReplicatedWriter {
  readonly cluster: boolean;
  readonly client: RedisClientType | RedisClusterType | AnyIoredis;
  readonly connected: boolean;
  /** How a call's outcome reaches the caller (see handover.ts): the pool's spreads calls. */
  readonly handover: Handover;
  close(): Promise<"OK">;
}

export function openConnection(settings: ConnectionSettings, events: ConnectionEvents): QueueConnection {
  const client = settings.given.client;
  if (isIoredis(client)) {
    adviseOnSentinelClient(client);
    return new IoredisConnection(client, settings.bounds, settings.subscriberPingMs, events);
  }
  if (!settings.cluster) {
    if (settings.connections === 1 && !settings.growth) return new Connection(settings, events);
    return new ConnectionPool(settings, settings.connections, events, settings.growth);
  }
  const given = settings.given.client;
  const retryMs = settings.clusterRetryMs;
  if (isClusterClient(given)) return new ClusterConnection({ client: given, retryMs }, events);
  return new ClusterConnection({ cluster: toClusterOptions(settings.given), retryMs }, events);
}

/** A subscriber on a copy of the connection's current client, for realtime wakes. */
export function openSubscriber(connection: QueueConnection, onError: (error: Error) => void): Subscriber {
  if (connection instanceof IoredisConnection)
    return new IoredisSubscriber(connection.client, onError, connection.bounds, connection.subscriberPingMs);
  if (connection.cluster) return new ClusterSubscriber(connection as ClusterConnection, onError);
  const single = connection as Connection | ConnectionPool;
  return new ClientSubscriber(single.client, onError, single.bounds, single.subscriberPingMs);
}
