/**
 * Recognises the `client` a caller passes: a node-redis 4, 5 or 6 client is used as it is; a
 * node-redis v3 client (what rsmq 0.12.4 accepted) only lends its connection settings; anything
 * else the package does not know is refused (see describeUnknownClient).
 */
import type { RedisClientType } from "redis";
import { isClusterClient } from "../../transports/node-redis/private-shapes";
import { isIoredis } from "../../transports/ioredis/client-shape";

/** Just enough of a node-redis v3 `RedisClient` to read where it connects. */
interface V3Client {
  send_command: unknown;
  connection_options?: { host?: string; port?: number; path?: string };
  options?: { host?: string; port?: number; path?: string; db?: number | string; password?: string; tls?: unknown };
  selected_db?: number | string;
  auth_pass?: string;
}

/**
 * Whether `client` is a node-redis 4, 5 or 6 client (`createClient`; a v4 one in legacyMode too),
 * by its shape. A node-redis 5/6 client pool or Sentinel client has `sendCommand`, `connect` and
 * `isOpen` as well, but no `duplicate` and `isPubSubActive` both: neither is one connection.
 */
export function isV4Client(client: unknown): client is RedisClientType {
  const candidate = client as Partial<RedisClientType> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.sendCommand === "function" &&
    typeof candidate.connect === "function" &&
    typeof candidate.duplicate === "function" &&
    "isOpen" in candidate &&
    "isPubSubActive" in candidate
  );
}

/** Whether the package knows `client`: a node-redis client or cluster client, an ioredis one, or a node-redis v3 client. */
export function isKnownClient(client: unknown): boolean {
  return isIoredis(client) || isClusterClient(client) || isV4Client(client) || isV3Client(client);
}

/** What the package takes as `client`, for the message that refuses anything else. */
export const KNOWN_CLIENTS =
  "a node-redis 4, 5 or 6 client or cluster client (a v4 client in legacyMode too), " +
  "an ioredis 5 or 6 client (standalone, Sentinel-managed or Cluster), " +
  "or a node-redis v3 client (which lends its host, port, db and password)";

/** How many of an unknown object's keys its refusal shows. */
const KEYS_SHOWN = 6;

/**
 * An unknown `client` as its refusal shows it: its type, an object's constructor name and first
 * few keys (never their values, which may be credentials).
 */
export function describeUnknownClient(client: unknown): string {
  if (typeof client !== "object" || client === null) {
    return typeof client === "function" ? `a function (${client.name || "anonymous"})` : `\`${String(client)}\` (${typeof client})`;
  }
  const name = (client as { constructor?: { name?: unknown } }).constructor?.name;
  const keys = Object.keys(client);
  const shown = keys.slice(0, KEYS_SHOWN).join(", ") + (keys.length > KEYS_SHOWN ? ", ..." : "");
  return `an object (${typeof name === "string" && name !== "" ? name : "no constructor"}) with keys { ${shown} }`;
}

export function isV3Client(client: unknown): client is V3Client {
  const candidate = client as Partial<V3Client> | null;
  return typeof candidate === "object" && candidate !== null && typeof candidate.send_command === "function";
}

/** The v3 client's host, port (or unix path), db, password and TLS, as top-level rsmq options. */
export function settingsOfV3Client(client: V3Client): Record<string, unknown> {
  const connection = client.connection_options ?? {};
  const options = client.options ?? {};
  return {
    host: connection.host ?? options.host,
    port: connection.port ?? options.port,
    path: connection.path ?? options.path,
    db: client.selected_db ?? options.db,
    password: client.auth_pass ?? options.password,
    tls: options.tls,
  };
}

let warnedAboutV3 = false;

/** Once per process: a v3 client cannot be used as it is. */
export function warnV3ClientOnce(): void {
  if (warnedAboutV3) return;
  warnedAboutV3 = true;
  process.emitWarning(
    "rsmq-next runs on node-redis v4: the node-redis v3 client passed as `client` is not used; " +
      "a new v4 connection was opened with its host, port, db and password. Pass a v4 client to share one.",
    { code: "RSMQ_NEXT_V3_CLIENT" },
  );
}
