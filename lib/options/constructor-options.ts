/**
 * The RedisSMQ constructor's options, resolved once and before anything connects: every option
 * the queue reads is checked (one message style, see checks.ts) and given its default, both from
 * the one table of the options (constructor-option-table.ts), so options this refuses leave no
 * connection open and send nothing. The connection keys (host, port, socket, url, ...) keep rsmq
 * 0.12.4's tolerance: they are translated where the client is made
 * (options/connection/client-options.ts), and a key nobody knows is warned about once, not refused.
 */
import { isClusterClient } from "../transports/node-redis/private-shapes";
import { isV3Client } from "./connection/given-client";
import type { ConnectionSettings } from "./connection/connection-settings";
import { ON_DEMAND } from "../transports/node-redis/pool-growth";
import type { PoolGrowth } from "../transports/node-redis/pool-growth";
import { isIoredis, isIoredisCluster } from "../transports/ioredis/client-shape";
import type { ReplicaAcks } from "../transports/transport";
import { halfHashTag, KeyLayout } from "../keys";
import type { ConstructorOptions } from "../types";
import { optionError } from "./checks";
import { CONSTRUCTOR_OPTIONS, readOption } from "./constructor-option-table";
import type { ResolvedOption } from "./constructor-option-table";
import { warnUnknownKeys } from "./unknown-constructor-keys";

export { CONSTRUCTOR_DEFAULTS } from "./constructor-option-table";

export interface ResolvedConstructorOptions {
  /** The key prefix, without the trailing colon. */
  readonly ns: string;
  /** Whether sendMessage publishes on `<ns>:rt:<qname>`. */
  readonly realtime: boolean;
  /** Whether a send without `realtime` publishes a wake for sleeping consumers when one is wanted. */
  readonly wakeConsumers: boolean;
  /** Where each queue's keys are: rsmq's layout, or tagged per queue in Redis Cluster. */
  readonly layout: KeyLayout;
  /** `waitForReplicas` and `waitForReplicasMs`; undefined when off. */
  readonly replicaAcks: ReplicaAcks | undefined;
  /** What opening the connection takes. */
  readonly connection: ConnectionSettings;
  /** The `telemetry` option, checked: false when off. */
  readonly telemetry: ResolvedOption<"telemetry">;
}

/** Checks the constructor's options and applies their defaults; throws a TypeError for the first bad one. */
export function resolveConstructorOptions(options: ConstructorOptions | undefined | null): ResolvedConstructorOptions {
  const given: Record<string, unknown> = { ...options };
  warnUnknownKeys(given);
  const ns = readOption(given, "ns");
  const realtime = readOption(given, "realtime");
  const wakeConsumers = readOption(given, "wakeConsumers");
  const cluster = wantsCluster(given);
  // Read for its check alone: an ioredis client with keyPrefix or stringNumbers is refused.
  readOption(given, "client");
  if (cluster && halfHashTag(ns)) {
    throw optionError("ns", "a namespace holding a whole hash tag like `{myapp}`, or no braces at all, in Redis Cluster", ns);
  }
  const telemetry = readOption(given, "telemetry");
  return {
    ns,
    realtime,
    wakeConsumers,
    telemetry,
    layout: KeyLayout.for(ns, cluster),
    replicaAcks: replicaAcksOf(given),
    connection: {
      given,
      cluster,
      honorNestedOptions: readOption(given, "honorNestedOptions"),
      bounds: {
        offlineTimeoutMs: readOption(given, "offlineTimeoutMs"),
        commandTimeoutMs: readOption(given, "commandTimeoutMs"),
      },
      subscriberPingMs: readOption(given, "subscriberPingMs"),
      ...connectionsOf(given, cluster),
      clusterRetryMs: readOption(given, "clusterRetryMs"),
    },
  };
}

/**
 * Redis Cluster: a cluster client as `client` (any `cluster` option is then unused), or `cluster`
 * options, which must name the root nodes.
 */
function wantsCluster(given: Record<string, unknown>): boolean {
  if (isIoredis(given.client)) return isIoredisCluster(given.client);
  if (isClusterClient(given.client)) return true;
  return readOption(given, "cluster") !== undefined;
}

/** Off (undefined) with `waitForReplicas` 0; `waitForReplicasMs` is checked either way. */
function replicaAcksOf(given: Record<string, unknown>): ReplicaAcks | undefined {
  const replicas = readOption(given, "waitForReplicas");
  const timeoutMs = readOption(given, "waitForReplicasMs");
  return replicas === 0 ? undefined : { replicas, timeoutMs };
}

/**
 * Single server, `connections` left out: one connection, and a second while calls pile up (see
 * transports/node-redis/pool-growth.ts), so that an instance holds one command connection as rsmq 0.12.4's
 * did, except under load. Given, `connections` is how many are opened at once and kept. With a
 * client passed in, that client alone unless `connections` asks for more; a node-redis v3 client
 * only lends its settings to connections opened here, so it gets the default. Redis Cluster: the
 * cluster client keeps one connection per node, so only 1.
 */
function connectionsOf(given: Record<string, unknown>, cluster: boolean): { connections: number; growth: PoolGrowth | undefined } {
  const ioredis = isIoredis(given.client);
  const borrowed = !absent(given.client) && (ioredis || !isV3Client(given.client));
  if (absent(given.connections)) {
    return { connections: CONSTRUCTOR_OPTIONS.connections.default, growth: cluster || borrowed ? undefined : ON_DEMAND };
  }
  const connections = readOption(given, "connections");
  if (ioredis && connections !== 1) {
    throw optionError("connections", "1 or left out with an ioredis client (its own connection carries every call)", given.connections);
  }
  if (cluster && connections !== 1) {
    throw optionError(
      "connections",
      "1 or left out in Redis Cluster (the cluster client keeps one connection per node)",
      given.connections,
    );
  }
  return { connections, growth: undefined };
}

function absent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}
