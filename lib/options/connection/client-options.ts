/**
 * Turns rsmq-style constructor options into node-redis v4 client options. rsmq users hold
 * v3-style keys (`host`, `port`, `db`, `password`, `tls`, `connect_timeout`); v4 keys (`socket`,
 * `database`, `username`, `disableOfflineQueue`, ...) are accepted as they are.
 */
import type { RedisClientOptions, RedisClusterOptions } from "redis";
import { nestedLayer } from "./nested-options";
import { CONSTRUCTOR_OPTIONS, QUEUE_KEYS } from "../constructor-option-table";
import type { ConnectionKeyName } from "../constructor-option-table";

const V4_KEY_NAMES = [
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
] as const;
/** node-redis v4 options passed through unchanged. */
export const V4_KEYS: ReadonlySet<string> = new Set(V4_KEY_NAMES);

const TRANSLATED_KEY_NAMES = ["host", "path", "port", "connect_timeout", "tls", "socket", "db", "user", "enable_offline_queue"] as const;
/** v3-style (rsmq 0.12.4) keys translated below, and `socket`, merged into v4's socket options. */
export const TRANSLATED_KEYS: ReadonlySet<string> = new Set(TRANSLATED_KEY_NAMES);

type ReadKey = (typeof V4_KEY_NAMES)[number] | (typeof TRANSLATED_KEY_NAMES)[number];
/** The connection keys of the options table are all read here: `tsc` fails on one that is not. */
const connectionKeysRead: Exclude<ConnectionKeyName, ReadKey> extends never ? true : never = true;
void connectionKeysRead;

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
    socket.host ??= CONSTRUCTOR_OPTIONS.host.default;
    socket.port ??= CONSTRUCTOR_OPTIONS.port.default;
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
