/**
 * Opening the connection for a command: --url (or REDIS_URL) and --ns, a short connect timeout,
 * and no endless retrying. node-redis v4 retries a connection forever by default, which would leave
 * a command hanging silently when the server is down; here the first failure ends the command
 * with "cannot reach Redis at ...: is it running?". Its connectTimeout bounds the TCP connect
 * alone, not the handshake after it, which waits for ever on a server that accepts and never
 * answers (a stuck proxy, a wrong port, a server busy in a long command): so the first connection
 * as a whole gets CONNECT_TIMEOUT_MS. Once connected, a long-running command (worker,
 * stats --watch) rides out an outage by reconnecting; a one-shot command gives up after a few tries.
 */
import type { EventEmitter } from "events";
import type { RedisSMQ } from "../redis-smq";
import { explainConnectFailure } from "./connect-failure";
import { ConnectDeadline, usageError } from "./errors";
import { redactUrl } from "./format";
import { createSentinelClient, firstConnection } from "./sentinel-client";
import type { SentinelSettings } from "./sentinel-client";

/** The library, loaded on first use: --help and usage errors need no node-redis. */
function library(): typeof import("../redis-smq") {
  return require("../redis-smq") as typeof import("../redis-smq");
}

/** How long the first connection may take, the TCP connect and the handshake after it together. */
export const CONNECT_TIMEOUT_MS = 2000;

export interface ServerSettings {
  /** redis:// or rediss:// URL. */
  readonly url: string;
  /** Key prefix of the queues. */
  readonly ns: string;
  /** Whether `url` is a node of a Redis Cluster (the others are found from it). */
  readonly cluster?: boolean;
  /** --sentinel: the primary these sentinels name, through an ioredis client (`url` is not used). */
  readonly sentinel?: SentinelSettings;
  /** --command-timeout: how long a call waits for Redis' reply (the library's commandTimeoutMs); its default when absent. */
  readonly commandTimeoutMs?: number;
}

/** Checks --url before anything connects: a typo is a usage error, not "cannot reach". */
export function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw usageError(`invalid --url "${url}"`, "expected redis://[[user]:password@]host[:port][/db], e.g. redis://127.0.0.1:6379");
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw usageError(`invalid --url "${redactUrl(url)}": it must start with redis:// or rediss://`, "e.g. redis://127.0.0.1:6379");
  }
  return url;
}

/** Retry timing once connected: quick at first, then every 3 s. */
function reconnectDelay(retries: number): number {
  return Math.min(100 + retries * 200, 3000);
}

export interface OpenOptions {
  /** Keep reconnecting after an outage (worker, --watch); otherwise give up after a few tries. */
  persistent?: boolean;
}

/**
 * The user and password of a URL. In a cluster the root node's URL is only used to find the
 * others: every other node is reached with `defaults`, so they must carry the credentials too.
 */
function credentialsOf(url: string): { username?: string; password?: string } {
  const parsed = new URL(url);
  return {
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
  };
}

/** A connected RedisSMQ; rejects with a CliError when the server cannot be reached. Close it with closeQueue(). */
export async function openQueue(settings: ServerSettings, options: OpenOptions = {}): Promise<RedisSMQ> {
  if (settings.sentinel) return openSentinelQueue(settings.sentinel, settings.ns, settings.commandTimeoutMs);
  const { commandTimeoutMs } = settings;
  const url = checkUrl(settings.url);
  let everReady = false;
  const socket = {
    connectTimeout: CONNECT_TIMEOUT_MS,
    reconnectStrategy: (retries: number, cause: Error) => {
      if (!everReady) return cause;
      if (!options.persistent && retries >= 3) return cause;
      return reconnectDelay(retries);
    },
  };
  const rsmq = new (library().RedisSMQ)(
    settings.cluster
      ? // A one-shot command should not ride out a whole failover; a worker should.
        {
          ns: settings.ns,
          cluster: { rootNodes: [{ url }], defaults: { socket, ...credentialsOf(url) } },
          clusterRetryMs: options.persistent ? undefined : 5000,
          commandTimeoutMs,
        }
      : // One connection: a command makes its calls one at a time (the worker's run its --exec
        // processes), and the connect-failure check below reads that one client.
        { url, ns: settings.ns, socket, connections: 1, commandTimeoutMs },
  );
  try {
    await connectedWithin(rsmq, CONNECT_TIMEOUT_MS);
    everReady = true;
  } catch (error) {
    await rsmq.quitAsync().catch(() => undefined);
    throw await explainConnectFailure(url, error);
  }
  // From here on connection errors surface where a command fails; an unheard one must not crash.
  rsmq.on("error", () => undefined);
  return rsmq;
}

/**
 * Resolves once `rsmq` is connected; rejects with the error that made node-redis give up, or with
 * a ConnectDeadline after `ms`.
 */
function connectedWithin(rsmq: RedisSMQ, ms: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    // node-redis' `connect`: the TCP (and TLS) connection is up, and its handshake goes out.
    let accepted = false;
    const onAccepted = (): void => {
      accepted = true;
    };
    const client = rsmq.redis as unknown as EventEmitter;
    const settle = (error?: unknown): void => {
      clearTimeout(timer);
      client.off("connect", onAccepted);
      rsmq.off("connect", onConnect);
      rsmq.off("error", onError);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onConnect = (): void => settle();
    const onError = (error: Error): void => {
      // node-redis closes the client once the strategy gives up: that is the final answer.
      if (!rsmq.redis.isOpen) settle(error);
    };
    const timer = setTimeout(() => settle(new ConnectDeadline(ms, accepted)), ms);
    client.on("connect", onAccepted);
    rsmq.once("connect", onConnect);
    rsmq.on("error", onError);
  });
}

/** How long the first connection through the sentinels may take: asking them, then reaching the primary. */
export const SENTINEL_CONNECT_TIMEOUT_MS = 5000;

/** The ioredis clients the CLI opened for --sentinel: a RedisSMQ leaves a client it was given open. */
const ownClients = new WeakMap<RedisSMQ, { disconnect(): void }>();

/** A RedisSMQ on the primary the sentinels name, with the ioredis client it was given, which closeQueue() closes. */
async function openSentinelQueue(sentinel: SentinelSettings, ns: string, commandTimeoutMs: number | undefined): Promise<RedisSMQ> {
  const client = createSentinelClient(sentinel, { connectTimeoutMs: CONNECT_TIMEOUT_MS });
  const rsmq = new (library().RedisSMQ)({ client, ns, commandTimeoutMs });
  ownClients.set(rsmq, client);
  try {
    await firstConnection(rsmq, sentinel, SENTINEL_CONNECT_TIMEOUT_MS);
  } catch (error) {
    await closeQueue(rsmq).catch(() => undefined);
    throw error;
  }
  // From here on connection errors surface where a command fails; an unheard one must not crash.
  rsmq.on("error", () => undefined);
  return rsmq;
}

/** Closes a RedisSMQ from openQueue(), with the ioredis client the CLI opened for it (--sentinel). */
export async function closeQueue(rsmq: RedisSMQ): Promise<void> {
  try {
    await rsmq.quitAsync();
  } finally {
    ownClients.get(rsmq)?.disconnect();
    ownClients.delete(rsmq);
  }
}

/** Runs `action` with a connected RedisSMQ and always closes it. */
export async function withQueue<T>(
  settings: ServerSettings,
  action: (rsmq: RedisSMQ) => Promise<T>,
  options: OpenOptions = {},
): Promise<T> {
  const rsmq = await openQueue(settings, options);
  try {
    return await action(rsmq);
  } finally {
    await closeQueue(rsmq).catch(() => undefined);
  }
}
