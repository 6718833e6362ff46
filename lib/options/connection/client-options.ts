/**
 * Turns rsmq-style constructor options into node-redis v4 client options. rsmq users hold
 * v3-style keys (`host`, `port`, `db`, `password`, `tls`, `connect_timeout`); v4 keys (`socket`,
 * `database`, `username`, `disableOfflineQueue`, ...) are accepted as they are.
 */
import type { RedisClientOptions, RedisClusterOptions } from "redis";
import { nestedLayer } from "./nested-options";

/** Keys that belong to the queue, not to the connection. */
export const QUEUE_KEYS = new Set([
  "ns",
  "realtime",
  "client",
  "options",
  "cluster",
  "clusterRetryMs",
  "honorNestedOptions",
  "waitForReplicas",
  "waitForReplicasMs",
  "offlineTimeoutMs",
  "commandTimeoutMs",
  "subscriberPingMs",
  "connections",
]);

/** node-redis v4 options passed through unchanged. */
export const V4_KEYS = new Set([
  "url",
  "username",
  "password",
  "name",
  "database",
  "commandsQueueMaxLength",
  "disableOfflineQueue",
  "readonly",
  "pingInterval",
  "disableClientInfo",
  "clientInfoTag",
  "isolationPoolOptions",
]);

/** v3-style (rsmq 0.12.4) keys translated below, and `socket`, merged into v4's socket options. */
export const TRANSLATED_KEYS = new Set(["host", "path", "port", "connect_timeout", "tls", "socket", "db", "user", "enable_offline_queue"]);

type Options = Record<string, unknown>;
type SocketOptions = Record<string, unknown>;

/** Reads one layer of options (the nested `options` object, or the top level). */
function translateLayer(layer: Options, into: Options, socket: SocketOptions): void {
  for (const [key, value] of Object.entries(layer)) {
    if (value === undefined || value === null || QUEUE_KEYS.has(key)) continue;
    switch (key) {
      case "host":
      case "path":
        socket[key] = value;
        break;
      case "port":
        socket.port = Number(value);
        break;
      case "connect_timeout":
        socket.connectTimeout = Number(value);
        break;
      case "tls":
        // v3 takes a TLS options object; v4 takes `tls: true` with those options on `socket`.
        Object.assign(socket, typeof value === "object" ? value : {}, { tls: true });
        break;
      case "socket":
        Object.assign(socket, value);
        break;
      case "db":
        into.database = Number(value);
        break;
      case "user":
        into.username = value;
        break;
      case "enable_offline_queue":
        into.disableOfflineQueue = value === false;
        break;
      default:
        if (V4_KEYS.has(key)) into[key] = value;
    }
  }
}

/**
 * Client options for a connection this library opens. Top-level keys win over the nested
 * `options` object, whose v3-style keys count only with `honor` (see nested-options.ts); host and
 * port fall back to rsmq's defaults when neither layer names a server (a `url` always wins, as in
 * node-redis).
 */
export function toClientOptions(topLevel: Options, honor: boolean): RedisClientOptions {
  const options: Options = {};
  const socket: SocketOptions = {};
  const nested = nestedLayer(topLevel, honor);
  if (nested) translateLayer(nested, options, socket);
  translateLayer(topLevel, options, socket);
  if (socket.path === undefined) {
    socket.host ??= "127.0.0.1";
    socket.port ??= 6379;
  }
  options.socket = socket;
  return options as RedisClientOptions;
}

/**
 * Cluster options for a cluster this library opens: `cluster` as given, with the rsmq-style
 * top-level keys (`password`, `username`, `tls`, `connect_timeout`, ...) as settings for every
 * node, under the cluster's own `defaults`. Where each node is comes from the cluster itself, so
 * host, port, path and url do not apply.
 */
export function toClusterOptions(topLevel: Options): RedisClusterOptions {
  const cluster = topLevel.cluster as RedisClusterOptions;
  // rsmq 0.12.4 never ran on a cluster: whatever is nested here was written for this library.
  const perNode = toClientOptions({ ...topLevel, url: undefined }, true) as Options;
  const socket = { ...(perNode.socket as SocketOptions) };
  delete socket.host;
  delete socket.port;
  delete socket.path;
  delete perNode.socket;
  const defaults = cluster.defaults ?? {};
  return {
    ...cluster,
    defaults: { ...perNode, ...defaults, socket: { ...socket, ...defaults.socket } } as RedisClusterOptions["defaults"],
  };
}
