/**
 * A drop-in must not move the data. rsmq 0.12.4 handed its whole options object to node-redis
 * v3, which reads top-level keys only: the nested `options` object never reached the connection,
 * so code written for rsmq with `options: { db: 1 }` (rsmq-cli's `--clientopt db=1`) keeps its
 * queues in db 0 of the top-level server. Following the nested keys after an upgrade would make
 * those queues seem to vanish, and split a rolling deploy between two databases. So, by default,
 * the v3-style keys rsmq users could have nested are ignored as rsmq ignored them, with one
 * warning that names both targets; `honorNestedOptions: true` follows them.
 *
 * Keys only node-redis v4 knows (`database`, `socket`, `username`, `disableOfflineQueue`, ...)
 * are always followed: no rsmq 0.12.4 configuration could use them, so whoever wrote them wrote
 * them for this library.
 */
import type { RedisClientOptions } from "redis";
import { isDeepStrictEqual } from "util";
import type { CheckedName } from "../constructor-option-table";

/** The constructor option that makes the nested v3-style keys count. */
export const HONOR_NESTED_OPTIONS = "honorNestedOptions" satisfies CheckedName;

/** Keys node-redis v3 reads at the top level, and so rsmq 0.12.4 ignored when nested. */
export const RSMQ_IGNORED_NESTED_KEYS: ReadonlySet<string> = new Set([
  "url",
  "host",
  "port",
  "path",
  "db",
  "password",
  "user",
  "tls",
  "connect_timeout",
  "enable_offline_queue",
]);

type Options = Record<string, unknown>;

/** The nested `options` layer to read: all of it, or without the keys rsmq 0.12.4 ignored. */
export function nestedLayer(topLevel: Options, honor: boolean): Options | undefined {
  const nested = topLevel.options;
  if (!nested || typeof nested !== "object") return undefined;
  if (honor) return nested as Options;
  return Object.fromEntries(Object.entries(nested).filter(([key]) => !RSMQ_IGNORED_NESTED_KEYS.has(key)));
}

/** The nested keys rsmq 0.12.4 ignored that these options set (and are ignored here too, unless `honor`). */
export function ignoredNestedKeys(topLevel: Options, honor: boolean): string[] {
  const nested = topLevel.options;
  if (!nested || typeof nested !== "object" || honor) return [];
  return Object.entries(nested)
    .filter(([key, value]) => RSMQ_IGNORED_NESTED_KEYS.has(key) && value !== undefined && value !== null)
    .map(([key]) => key);
}

/** Server and database of a connection, for people: `127.0.0.1:6379 db 0`, never a password. */
export function describeTarget(options: RedisClientOptions): string {
  const socket = (options.socket ?? {}) as { host?: string; port?: number; path?: string };
  let server = socket.path ?? `${socket.host}:${socket.port}`;
  let database = options.database ?? 0;
  if (options.url) {
    // node-redis v4 lets the url's host, port and database win over the other keys.
    const url = new URL(options.url);
    server = `${url.hostname}:${url.port || 6379}`;
    if (url.pathname.length > 1) database = Number(url.pathname.slice(1));
  }
  return `${server} db ${database}`;
}

const warned = new Set<string>();

/**
 * Warns once per process (per distinct message) when ignoring the nested options changes the
 * connection: with both targets when they ask for another server or database, else naming the
 * keys left unused. Nested keys that repeat the top-level ones change nothing and go unmentioned.
 *
 * @param used the client options in use (rsmq 0.12.4's target)
 * @param asked the client options the nested object asks for
 */
export function warnIgnoredNestedOnce(ignored: readonly string[], used: RedisClientOptions, asked: RedisClientOptions): void {
  // db 0 is the default: naming it changes nothing.
  const same = isDeepStrictEqual({ ...used, database: used.database ?? 0 }, { ...asked, database: asked.database ?? 0 });
  if (ignored.length === 0 || same) return;
  const usedTarget = describeTarget(used);
  const askedTarget = describeTarget(asked);
  const keys = ignored.map((key) => `\`options.${key}\``).join(", ");
  const choose =
    "To choose explicitly, put the connection keys at the top level (`host`, `port`, `db`, `url`, `password`, ...), " +
    `pass a connected \`client\`, or set \`${HONOR_NESTED_OPTIONS}: true\` to follow \`options\`.`;
  const message =
    usedTarget === askedTarget
      ? `rsmq-next: ${keys} ${ignored.length === 1 ? "is" : "are"} ignored, as rsmq 0.12.4 ignored them (node-redis v3 read top-level keys only). ${choose}`
      : `rsmq-next: \`options\` asks for ${askedTarget}, but rsmq 0.12.4 ignored the nested \`options\` ` +
        `(${keys}) and used ${usedTarget}, so this instance uses ${usedTarget} too and the queues stay where ` +
        `rsmq kept them. ${choose}`;
  if (warned.has(message)) return;
  warned.add(message);
  process.emitWarning(message, { code: "RSMQ_NEXT_NESTED_OPTIONS" });
}
