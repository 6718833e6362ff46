/**
 * `--sentinel host:port,... --name <primary>`: the commands reach the primary that Redis Sentinel
 * names, through an ioredis client (node-redis v4 has no Sentinel support). ioredis is an optional
 * peer dependency: it is loaded here, on first use, and only for --sentinel, so the CLI and the
 * library still run on node-redis alone; without it, --sentinel ends with a message saying to
 * install it.
 */
import type { EventEmitter } from "events";
import { CliError, usageError } from "./errors";

/** A sentinel's address, as ioredis' `sentinels` option wants it. */
export interface SentinelAddress {
  readonly host: string;
  readonly port: number;
}

/** What --sentinel, --name and the password options ask for. */
export interface SentinelSettings {
  readonly sentinels: readonly SentinelAddress[];
  /** The name the sentinels monitor the primary under (`sentinel monitor <name> ...`). */
  readonly name: string;
  /** The password (and user) of the primary and replicas. */
  readonly password?: string;
  readonly username?: string;
  /** The password of the sentinels themselves (`requirepass` in sentinel.conf). */
  readonly sentinelPassword?: string;
}

/** The port a sentinel listens on when the list names none. */
export const DEFAULT_SENTINEL_PORT = 26379;

/** Parses `host:port,host:port` (a bare host means port 26379, `[::1]:26379` an IPv6 address); a usage error names a bad entry. */
export function parseSentinels(list: string): SentinelAddress[] {
  const entries = list
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (entries.length === 0) throw usageError(`--sentinel "${list}" names no sentinel`, "e.g. --sentinel 10.0.0.1:26379,10.0.0.2:26379");
  return entries.map((entry) => {
    const match = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d+))?$/.exec(entry);
    const port = match?.[3] === undefined ? DEFAULT_SENTINEL_PORT : Number(match[3]);
    if (!match || !(port >= 1 && port <= 65535))
      throw usageError(
        `invalid sentinel "${entry}" in --sentinel`,
        "expected host:port[,host:port...], e.g. --sentinel 10.0.0.1:26379,10.0.0.2:26379",
      );
    return { host: match[1] ?? match[2], port };
  });
}

/** How the sentinels are named in messages: `sentinels 10.0.0.1:26379,10.0.0.2:26379 (primary "mymaster")`. */
export function describeSentinels(settings: SentinelSettings): string {
  const list = settings.sentinels.map(({ host, port }) => (host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`)).join(",");
  return `sentinels ${list} (primary "${settings.name}")`;
}

/** Just enough of ioredis' `Redis` class: its constructor, and disconnect() to close what the CLI opened. */
interface IoredisConstructor {
  new (options: Record<string, unknown>): { disconnect(): void; on(event: string, listener: (...args: unknown[]) => void): unknown };
}

/** ioredis, loaded from where the CLI runs (or from rsmq-next's own dependencies). */
function loadIoredis(): IoredisConstructor {
  try {
    return (require("ioredis") as { Redis: IoredisConstructor }).Redis;
  } catch (error) {
    if ((error as { code?: unknown }).code !== "MODULE_NOT_FOUND") throw error;
    throw new CliError(
      "--sentinel needs ioredis, which is not installed (rsmq-next reaches Redis Sentinel through an ioredis client)",
      undefined,
      "install it beside rsmq-next: npm install ioredis",
    );
  }
}

export interface SentinelClientOptions {
  /** How long one connection attempt (to a sentinel, then to the primary) may take, ms. */
  connectTimeoutMs: number;
}

/**
 * A new, not yet connected ioredis client for the primary the sentinels name, owned by the caller
 * (disconnect() it). `failoverDetector: true` moves it to a new primary as soon as the sentinels
 * announce one, which matters after a manual failover: the old primary keeps accepting writes
 * until the sentinels demote it, 8 s or more later. `maxRetriesPerRequest: null` leaves the bounds
 * of a call to rsmq-next (offlineTimeoutMs, commandTimeoutMs).
 */
export function createSentinelClient(settings: SentinelSettings, options: SentinelClientOptions): { disconnect(): void } {
  const Redis = loadIoredis();
  return new Redis({
    sentinels: settings.sentinels.map(({ host, port }) => ({ host, port })),
    name: settings.name,
    ...(settings.password === undefined ? {} : { password: settings.password }),
    ...(settings.username === undefined ? {} : { username: settings.username }),
    ...(settings.sentinelPassword === undefined ? {} : { sentinelPassword: settings.sentinelPassword }),
    failoverDetector: true,
    lazyConnect: true,
    maxRetriesPerRequest: null,
    connectTimeout: options.connectTimeoutMs,
  });
}

/** What ioredis says when a sentinel does not monitor a primary under the name asked for. */
const UNKNOWN_NAME = /No such master with that name/i;

/**
 * Resolves once `rsmq` (on a client from createSentinelClient) is connected; rejects with a
 * CliError when the sentinels know no primary by that name (at once), or when nothing connected
 * within `timeoutMs` (the sentinels down, or the primary they name unreachable). Only the first
 * connection is bounded here: afterwards ioredis rides out failovers and rsmq-next bounds each call.
 */
export function firstConnection(rsmq: EventEmitter, settings: SentinelSettings, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let lastError: Error | undefined;
    const settle = (error?: CliError): void => {
      clearTimeout(timer);
      rsmq.off("connect", onConnect);
      rsmq.off("error", onError);
      if (error) reject(error);
      else resolve();
    };
    const onConnect = (): void => settle();
    const onError = (error: Error): void => {
      lastError = error;
      if (UNKNOWN_NAME.test(error.message))
        settle(
          new CliError(
            `the ${describeSentinels(settings)} know no primary named "${settings.name}"`,
            undefined,
            "--name must be the name in the sentinels' `sentinel monitor <name> ...` line (SENTINEL MASTERS lists them)",
          ),
        );
    };
    const timer = setTimeout(
      () =>
        settle(
          new CliError(
            `cannot reach the primary through the ${describeSentinels(settings)} within ${timeoutMs} ms` +
              (lastError ? ` (${lastError.message})` : ""),
            undefined,
            "check that the sentinels run and that --sentinel lists their addresses (host:port, port 26379 by default)",
          ),
        ),
      timeoutMs,
    );
    rsmq.once("connect", onConnect);
    rsmq.on("error", onError);
  });
}
