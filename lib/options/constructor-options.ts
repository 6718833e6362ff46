/**
 * The RedisSMQ constructor's options, resolved once and before anything connects: every option
 * the queue reads is checked (one message style, see checks.ts) and given its default, so options
 * this refuses leave no connection open and send nothing. The connection keys (host, port,
 * socket, url, ...) keep rsmq 0.12.4's tolerance: they are translated where the client is made
 * (options/connection/client-options.ts), and a key nobody knows is warned about once, not refused.
 */
import type { RedisClusterOptions } from "redis";
import { isClusterClient } from "../transports/node-redis/internals";
import { isV3Client } from "./connection/given-client";
import type { ConnectionSettings } from "./connection/connection-settings";
import { ON_DEMAND } from "../transports/node-redis/pool-growth";
import type { PoolGrowth } from "../transports/node-redis/pool-growth";
import { hasStringNumbers, isIoredis, isIoredisCluster, keyPrefixOf } from "../transports/ioredis/client-shape";
import { HONOR_NESTED_OPTIONS } from "./connection/nested-options";
import type { ReplicaAcks } from "../transports/transport";
import { halfHashTag, KeyLayout } from "../keys";
import type { ConstructorOptions } from "../types";
import { booleanOption, integerOption, numberOption, optionError } from "./checks";
import { warnUnknownKeys } from "./unknown-constructor-keys";

/** The constructor's defaults (each documented on ConstructorOptions). */
export const CONSTRUCTOR_DEFAULTS = {
  ns: "rsmq",
  offlineTimeoutMs: 20_000,
  commandTimeoutMs: 10_000,
  /** Left out: the wake subscription is checked with the Workers' polls (transports/subscriber-health.ts). */
  subscriberPingMs: undefined,
  clusterRetryMs: 30_000,
  waitForReplicas: 0,
  waitForReplicasMs: 1_000,
} as const;

/** The most command connections one instance may keep. */
export const MAX_CONNECTIONS = 16;

export interface ResolvedConstructorOptions {
  /** The key prefix, without the trailing colon. */
  readonly ns: string;
  /** Whether sendMessage publishes on `<ns>:rt:<qname>`. */
  readonly realtime: boolean;
  /** Where each queue's keys are: rsmq's layout, or tagged per queue in Redis Cluster. */
  readonly layout: KeyLayout;
  /** `waitForReplicas` and `waitForReplicasMs`; undefined when off. */
  readonly replicaAcks: ReplicaAcks | undefined;
  /** What opening the connection takes. */
  readonly connection: ConnectionSettings;
}

/** Checks the constructor's options and applies their defaults; throws a TypeError for the first bad one. */
export function resolveConstructorOptions(options: ConstructorOptions | undefined | null): ResolvedConstructorOptions {
  const given: Record<string, unknown> = { ...options };
  warnUnknownKeys(given);
  // rsmq 0.12.4 took any ns and any realtime value: as a string, and as true or false.
  const ns = absent(given.ns) ? CONSTRUCTOR_DEFAULTS.ns : String(given.ns);
  const realtime = Boolean(given.realtime);
  const cluster = wantsCluster(given);
  checkIoredisClient(given.client);
  if (cluster && halfHashTag(ns)) {
    throw optionError("ns", "a namespace holding a whole hash tag like `{myapp}`, or no braces at all, in Redis Cluster", ns);
  }
  return {
    ns,
    realtime,
    layout: KeyLayout.for(ns, cluster),
    replicaAcks: replicaAcksOf(given),
    connection: {
      given,
      cluster,
      honorNestedOptions: optional(given, HONOR_NESTED_OPTIONS, false, booleanOption),
      bounds: {
        offlineTimeoutMs: optional(given, "offlineTimeoutMs", CONSTRUCTOR_DEFAULTS.offlineTimeoutMs, boundMs),
        commandTimeoutMs: optional(given, "commandTimeoutMs", CONSTRUCTOR_DEFAULTS.commandTimeoutMs, boundMs),
      },
      subscriberPingMs: optional<number | undefined>(given, "subscriberPingMs", CONSTRUCTOR_DEFAULTS.subscriberPingMs, boundMs),
      ...connectionsOf(given, cluster),
      clusterRetryMs: optional(given, "clusterRetryMs", CONSTRUCTOR_DEFAULTS.clusterRetryMs, (name, value) => numberOption(name, value, 0)),
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
  if (absent(given.cluster)) return false;
  const cluster = given.cluster as Partial<RedisClusterOptions>;
  if (typeof cluster !== "object" || !Array.isArray(cluster.rootNodes)) {
    throw optionError("cluster", "node-redis cluster options with a `rootNodes` array", cluster);
  }
  return true;
}

/**
 * An ioredis client's `keyPrefix` would be put in front of every key rsmq-next sends, moving the
 * queues away from where rsmq 0.12.4 (and every other client) looks for them; `stringNumbers`
 * would turn counts and codes in replies into strings (`msgs: "1"`, a delete read as not done).
 * Both are refused before anything is sent.
 */
function checkIoredisClient(client: unknown): void {
  if (!isIoredis(client)) return;
  const prefix = keyPrefixOf(client);
  if (prefix !== undefined) {
    throw new TypeError(
      `Expected \`client\` to be an ioredis client without \`keyPrefix\`, got one with keyPrefix \`${prefix}\`: ` +
        "it would move every queue's keys away from where other rsmq clients look. Give the prefix as `ns` instead.",
    );
  }
  if (hasStringNumbers(client)) {
    throw new TypeError(
      "Expected `client` to be an ioredis client without `stringNumbers`, got one with stringNumbers `true`: " +
        "rsmq-next reads integer replies as numbers. Pass a client made without it (`duplicate({ stringNumbers: false })`).",
    );
  }
}

/** Off (undefined) with `waitForReplicas` 0; `waitForReplicasMs` is checked either way. */
function replicaAcksOf(given: Record<string, unknown>): ReplicaAcks | undefined {
  const replicas = optional(given, "waitForReplicas", CONSTRUCTOR_DEFAULTS.waitForReplicas, (name, value) => integerOption(name, value, 0));
  const timeoutMs = optional(given, "waitForReplicasMs", CONSTRUCTOR_DEFAULTS.waitForReplicasMs, (name, value) =>
    integerOption(name, value, 1),
  );
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
  if (absent(given.connections)) return { connections: 1, growth: cluster || borrowed ? undefined : ON_DEMAND };
  const connections = integerOption("connections", given.connections, 1, MAX_CONNECTIONS);
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

/** A bound in ms, where 0 turns it off. */
function boundMs(name: string, value: unknown): number {
  return numberOption(name, value, 0, " (0 turns it off)");
}

/** The option `name` checked by `check`, or `fallback` when absent: rsmq reads null as not given. */
function optional<T>(given: Record<string, unknown>, name: string, fallback: T, check: (name: string, value: unknown) => T): T {
  const value = given[name];
  return absent(value) ? fallback : check(name, value);
}

function absent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}
