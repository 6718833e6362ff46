/**
 * Recognises the `client` a caller passes: a node-redis v4 client is used as it is; a node-redis
 * v3 client (what rsmq 0.12.4 accepted) only lends its connection settings.
 */
import type { RedisClientType } from "redis";

/** Just enough of a node-redis v3 `RedisClient` to read where it connects. */
interface V3Client {
  send_command: unknown;
  connection_options?: { host?: string; port?: number; path?: string };
  options?: { host?: string; port?: number; path?: string; db?: number | string; password?: string; tls?: unknown };
  selected_db?: number | string;
  auth_pass?: string;
}

export function isV4Client(client: unknown): client is RedisClientType {
  const candidate = client as Partial<RedisClientType> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.sendCommand === "function" &&
    typeof candidate.connect === "function" &&
    "isOpen" in candidate
  );
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
