/**
 * The Redis server tests talk to. By default a fresh `redis-server` from PATH on a free port,
 * stopped afterwards; with REDIS_URL, that server; with TEST_REDIS=container, a testcontainers
 * container (needs a Docker engine). Only the local server can be restarted by a test.
 */
import { freePort, startRedisServer } from "../../lib/cli/redis/redis-server";
import type { RedisServerProcess } from "../../lib/cli/redis/redis-server";

export interface TestRedis {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Whether restart() works (a server this harness started as a child process). */
  readonly restartable: boolean;
  /** Stops the server (SIGKILL) and starts it again on the same port: empty, unless it was started with persistence. */
  restart(): Promise<void>;
  /** Stops the server until start(). */
  stopProcess(): Promise<void>;
  startProcess(): Promise<void>;
  close(): Promise<void>;
}

export { freePort };

/** What a test can add to a server it starts itself (see startLocalRedis). */
export interface LocalRedisOptions {
  /** More redis-server arguments, after the defaults (a later argument wins): `["--appendonly", "yes"]`. */
  args?: string[];
  /** The server's working directory (`--dir`), where persistence files go; it must exist. */
  dir?: string;
}

/** The redis-server arguments for a server started with `options`. */
function localArgs({ args = [], dir }: LocalRedisOptions): string[] {
  return [...(dir === undefined ? [] : ["--dir", dir]), ...args];
}

/** A redis-server child process of this run; a restart brings it back on the same port. */
class LocalRedis implements TestRedis {
  readonly host = "127.0.0.1";
  readonly restartable = true;
  readonly port: number;
  private server: RedisServerProcess | undefined;

  constructor(
    started: RedisServerProcess,
    private readonly options: LocalRedisOptions,
  ) {
    this.server = started;
    this.port = started.port;
  }

  get url(): string {
    return `redis://${this.host}:${this.port}`;
  }

  async startProcess(): Promise<void> {
    this.server = await startRedisServer({ port: this.port, args: localArgs(this.options) });
  }

  async stopProcess(): Promise<void> {
    const running = this.server;
    this.server = undefined;
    await running?.stop("SIGKILL");
  }

  async restart(): Promise<void> {
    await this.stopProcess();
    await this.startProcess();
  }

  close(): Promise<void> {
    return this.stopProcess();
  }
}

class ExternalRedis implements TestRedis {
  readonly restartable = false;
  readonly host: string;
  readonly port: number;

  constructor(
    readonly url: string,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    const parsed = new URL(url);
    this.host = parsed.hostname;
    this.port = Number(parsed.port || 6379);
  }

  async restart(): Promise<void> {
    throw new Error("this test server cannot be restarted");
  }
  stopProcess = this.restart;
  startProcess = this.restart;

  close(): Promise<void> {
    return this.onClose();
  }
}

async function startContainer(): Promise<TestRedis> {
  const { GenericContainer } = await import("testcontainers");
  const container = await new GenericContainer("redis:7.0").withExposedPorts(6379).start();
  const url = `redis://${container.getHost()}:${container.getMappedPort(6379)}`;
  return new ExternalRedis(url, async () => {
    await container.stop();
  });
}

/**
 * A redis-server of the caller's own on a free port, with extra arguments and a data directory
 * (fault tests: AOF, maxmemory). Restarting it keeps the port and the directory, so a server
 * with persistence comes back with its data.
 */
export async function startLocalRedis(options: LocalRedisOptions = {}): Promise<TestRedis> {
  return new LocalRedis(await startRedisServer({ args: localArgs(options) }), options);
}

export async function startTestRedis(): Promise<TestRedis> {
  if (process.env.REDIS_URL) return new ExternalRedis(process.env.REDIS_URL);
  if (process.env.TEST_REDIS === "container") return startContainer();
  return startLocalRedis();
}
