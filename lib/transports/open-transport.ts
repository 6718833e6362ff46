/**
 * Picks the transport for a RedisSMQ instance: the caller's ioredis client (standalone, Sentinel
 * or Cluster) as it is; Redis Cluster when given a node-redis v4 cluster client or `cluster`
 * options; one server otherwise, on one connection or on a pool of them (opened at once, or
 * growing from one under load).
 */
import { toClusterOptions } from "../options/connection/client-options";
import type { ConnectionSettings } from "../options/connection/connection-settings";
import type { Transport, TransportEvents } from "./transport";
import { ClusterTransport } from "./cluster/cluster-transport";
import { isClusterClient } from "./node-redis/private-shapes";
import { NodeRedisTransport } from "./node-redis/node-redis-transport";
import { ConnectionPool } from "./node-redis/connection-pool";
import { isIoredis } from "./ioredis/client-shape";
import { IoredisTransport } from "./ioredis/ioredis-transport";
import { adviseOnSentinelClient } from "./ioredis/sentinel-advice";

/** Opens (or borrows) the transport the settings describe; its state is told to `events`. */
export function openTransport(settings: ConnectionSettings, events: TransportEvents): Transport {
  const client = settings.given.client;
  if (isIoredis(client)) {
    adviseOnSentinelClient(client);
    return new IoredisTransport(client, settings.bounds, settings.subscriberPingMs, events);
  }
  if (!settings.cluster) {
    if (settings.connections === 1 && !settings.growth) return new NodeRedisTransport(settings, events);
    return new ConnectionPool(settings, settings.connections, events, settings.growth);
  }
  const given = settings.given.client;
  const retryMs = settings.clusterRetryMs;
  if (isClusterClient(given)) return new ClusterTransport({ client: given, retryMs }, events);
  return new ClusterTransport({ cluster: toClusterOptions(settings.given), retryMs }, events);
}
