/**
 * Starts a `redis-server` child process on 127.0.0.1 and resolves once it is ready to accept
 * connections, within a bound. The demo starts its throwaway server with it; the test harness (one
 * server, or the six nodes of a test cluster) and the bench start theirs with it too, so every
 * server this project starts is started, waited for and reported on the same way.
 */
import { spawn } from "child_process";
import { createServer } from "net";

const HOST = "127.0.0.1";

/** What redis-server logs once it listens and has loaded its data (at loglevel notice or verbose). */
const READY_LINE = "Ready to accept connections";

/** What a Sentinel logs once it listens and has read its configuration (it never logs READY_LINE). */
const SENTINEL_READY_LINE = "Sentinel ID is";

/** How much of the server's log is kept, for error messages (the rest is read and dropped). */
const LOG_TAIL_CHARS = 20_000;

/** How long start waits for the server by default, ms. */
export const DEFAULT_START_TIMEOUT_MS = 10_000;

/** Why a redis-server did not start. */
export type RedisServerStartFailure =
  /** There is no `redis-server` on PATH. */
  | "notInstalled"
  /** The port was taken (only when the caller chose it: a free port is retried). */
  | "portInUse"
  /** It exited before it was ready (a bad argument, a bad directory, ...): see `log`. */
  | "exited"
  /** It was not ready within the bound; it has been killed. */
  | "timeout"
  /** It could not be run at all (permissions, ...). */
  | "spawnFailed";

export class RedisServerStartError extends Error {
  constructor(
    message: string,
    readonly code: RedisServerStartFailure,
    /** The end of what the server logged before it failed. */
    readonly log: string,
  ) {
    super(message);
    this.name = "RedisServerStartError";
  }
}

export interface RedisServerOptions {
  /** The port; by default a free one, and another free one if that was taken before the server bound it. */
  port?: number;
  /**
   * More redis-server arguments, after the defaults (`--save "" --appendonly no --loglevel
   * notice`; a later argument wins): `["--dir", dir, "--appendonly", "yes"]`.
   */
  args?: readonly string[];
  /** How long to wait until it is ready, ms (default DEFAULT_START_TIMEOUT_MS); then it is killed and start fails with code "timeout". */
  startTimeoutMs?: number;
  /**
   * Runs it in a process group of its own, so a Ctrl-C typed in the terminal reaches the caller
   * alone, which can then clean up before it stops the server (default false).
   */
  detached?: boolean;
  /**
   * Runs it as a Sentinel (`redis-server <file> --sentinel`) with this configuration file, which
   * must be writable: a Sentinel rewrites it as it learns the set-up.
   */
  sentinelConfigFile?: string;
}

/** A running redis-server started by startRedisServer. */
export interface RedisServerProcess {
  readonly host: typeof HOST;
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** The process id (undefined if it could not be spawned). */
  readonly pid: number | undefined;
  /** Whether the process has not exited yet. */
  readonly running: boolean;
  /** The end of what it has logged so far. */
  log(): string;
  /** Sends `signal` (default SIGTERM: a clean shutdown) and resolves once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** SIGKILL, at once and without waiting: for an exit hook or a forced quit. */
  kill(): void;
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** How many free ports are tried when each was taken between the check and the server's bind. */
const FREE_PORT_ATTEMPTS = 3;

/** Starts redis-server (see the module comment); fails with a RedisServerStartError. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServerProcess> {
  if (options.port !== undefined) return startOn(options.port, options);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(await freePort(), options);
    } catch (error) {
      if (!(error instanceof RedisServerStartError && error.code === "portInUse") || attempt >= FREE_PORT_ATTEMPTS) throw error;
    }
  }
}

function startOn(port: number, options: RedisServerOptions): Promise<RedisServerProcess> {
  const { args = [], startTimeoutMs = DEFAULT_START_TIMEOUT_MS, detached = false, sentinelConfigFile } = options;
  // redis-server reads a configuration file only as its first argument.
  const mode = sentinelConfigFile === undefined ? [] : [sentinelConfigFile, "--sentinel"];
  const readyLine = sentinelConfigFile === undefined ? READY_LINE : SENTINEL_READY_LINE;
  const child = spawn(
    "redis-server",
    [...mode, "--port", String(port), "--bind", HOST, "--save", "", "--appendonly", "no", "--loglevel", "notice", ...args],
    { stdio: ["ignore", "pipe", "pipe"], detached },
  );
  let log = "";
  let exited = child.exitCode !== null;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  // Read the whole life long: a full pipe would block the server on its next log line.
  const onOutput = (chunk: Buffer): void => void (log = (log + chunk.toString()).slice(-LOG_TAIL_CHARS));
  child.stdout.on("data", onOutput);
  child.stderr.on("data", onOutput);

  const server: RedisServerProcess = {
    host: HOST,
    port,
    url: `redis://${HOST}:${port}`,
    pid: child.pid,
    get running() {
      return !exited;
    },
    log: () => log,
    stop: (signal = "SIGTERM") => {
      if (!exited) child.kill(signal);
      return exit;
    },
    kill: () => void (exited || child.kill("SIGKILL")),
  };
  return new Promise((resolve, reject) => {
    const settle = (error?: RedisServerStartError): void => {
      clearTimeout(timer);
      child.stdout.off("data", onReady);
      child.off("error", onError);
      child.off("exit", onExit);
      if (error) reject(error);
      else resolve(server);
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      settle(
        new RedisServerStartError(
          `redis-server on port ${port} was not ready within ${startTimeoutMs} ms (startTimeoutMs):\n${log}`,
          "timeout",
          log,
        ),
      );
    }, startTimeoutMs);
    const onReady = (): void => {
      if (log.includes(readyLine)) settle();
    };
    const onError = (error: NodeJS.ErrnoException): void => {
      settle(
        error.code === "ENOENT"
          ? new RedisServerStartError("there is no redis-server on PATH", "notInstalled", log)
          : new RedisServerStartError(`cannot run redis-server: ${error.message}`, "spawnFailed", log),
      );
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      const inUse = /already in use/i.test(log);
      settle(
        new RedisServerStartError(
          `redis-server on port ${port} exited (${code ?? signal}) before it was ready:\n${log}`,
          inUse ? "portInUse" : "exited",
          log,
        ),
      );
    };
    child.stdout.on("data", onReady);
    child.once("error", onError);
    child.once("exit", onExit);
  });
}
