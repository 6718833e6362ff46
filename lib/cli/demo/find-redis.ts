/**
 * The demo's Redis: the one at --url / REDIS_URL (127.0.0.1:6379 by default); if nothing answers
 * there and `redis-server` is on PATH, a throwaway one on a free port, stopped at the end; if
 * neither, an error that says exactly how to get one.
 */
import { createClient } from "redis";
import { explainConnectFailure, isPlainServerForTls } from "../connect-failure";
import { CliError, connectionProblem, plainServerForTls } from "../errors";
import { redactUrl } from "../format";
import { RedisServerStartError, startRedisServer } from "../redis/redis-server";
import type { RedisServerProcess } from "../redis/redis-server";

export interface DemoRedis {
  readonly url: string;
  readonly version: string;
  /** Set when the demo started this server itself. */
  readonly throwaway: boolean;
  /** Stops a throwaway server (does nothing otherwise). */
  stop(): Promise<void>;
  /** Stops a throwaway server at once, for a forced quit. */
  kill(): void;
}

export const HOW_TO_GET_REDIS =
  "install Redis (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis) so that redis-server is on PATH, " +
  "or start one with Docker: docker run --rm -p 6379:6379 redis:7, or point REDIS_URL (or --url) at a server you have";

/** How long the probe may take to connect, the handshake included. */
const PROBE_CONNECT_MS = 1500;

/** The server's version, or the reason it could not be reached. */
async function probe(url: string): Promise<{ version: string } | { problem: string }> {
  // connectTimeout bounds the TCP connect alone: a server that accepts and never answers would
  // hold the handshake for ever, so the whole connect gets a deadline that destroys its socket.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), PROBE_CONNECT_MS);
  // (net.connect takes the signal; node-redis' option types do not name it.)
  const socket = { connectTimeout: PROBE_CONNECT_MS, reconnectStrategy: false as const, signal: deadline.signal };
  const client = createClient({ url, socket });
  let accepted = false;
  client.on("connect", () => (accepted = true));
  client.on("error", () => undefined);
  try {
    await client.connect();
    clearTimeout(timer);
    const info = String(await client.sendCommand(["INFO", "server"]));
    return { version: /redis_version:([^\r\n]+)/.exec(info)?.[1] ?? "unknown" };
  } catch (error) {
    if (deadline.signal.aborted && accepted)
      return { problem: `it accepted the connection but did not answer within ${PROBE_CONNECT_MS / 1000} s` };
    if (deadline.signal.aborted) return { problem: "no answer in time" };
    // rediss:// to a plain server looks like no answer: say so, rather than start a throwaway one.
    if (await isPlainServerForTls(url, error)) throw plainServerForTls(redactUrl(url));
    const problem = connectionProblem(error);
    if (problem) return { problem };
    const explained = await explainConnectFailure(url, error);
    if (explained instanceof CliError) throw explained;
    throw new CliError(
      `Redis at ${redactUrl(url)} answered with an error: ${error instanceof Error ? error.message : String(error)}`,
      1,
      "check --url (user, password, database)",
    );
  } finally {
    clearTimeout(timer);
    if (client.isOpen) await client.disconnect().catch(() => undefined);
  }
}

/** Starts a throwaway redis-server; undefined when there is no redis-server to run. */
async function startThrowaway(): Promise<RedisServerProcess | undefined> {
  try {
    // Its own process group: a Ctrl-C in the terminal reaches the demo alone, which closes its
    // connections and deletes its queues before it stops this server.
    return await startRedisServer({ detached: true });
  } catch (error) {
    if (error instanceof RedisServerStartError && error.code === "notInstalled") return undefined;
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
}

export async function findRedis(url: string, onNote: (text: string) => void): Promise<DemoRedis> {
  const found = await probe(url);
  if ("version" in found) return { url, version: found.version, throwaway: false, stop: () => Promise.resolve(), kill: () => undefined };
  const started = await startThrowaway();
  if (!started) {
    throw new CliError(
      `no Redis answers at ${redactUrl(url)} (${found.problem}), and there is no redis-server on PATH to start one`,
      1,
      HOW_TO_GET_REDIS,
    );
  }
  onNote(
    `nothing answers at ${redactUrl(url)} (${found.problem}): started a throwaway redis-server on port ${started.port}, stopped at the end`,
  );
  const version = await probe(started.url);
  return {
    url: started.url,
    version: "version" in version ? version.version : "unknown",
    throwaway: true,
    stop: () => started.stop(),
    kill: () => started.kill(),
  };
}
