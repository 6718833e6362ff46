/**
 * The Redis server tests talk to. By default a fresh `redis-server` from PATH on a free port,
 * stopped afterwards; with REDIS_URL, that server; with TEST_REDIS=container, a testcontainers
 * container (needs a Docker engine). Only the local server can be restarted by a test.
 */
import { spawn, type ChildProcess } from "child_process";
import { freePort } from "../../lib/cli/demo/find-redis";

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

class LocalRedis implements TestRedis {
  readonly host = "127.0.0.1";
  readonly restartable = true;
  private child: ChildProcess | undefined;

  constructor(
    readonly port: number,
    private readonly options: LocalRedisOptions = {},
  ) {}

  get url(): string {
    return `redis://${this.host}:${this.port}`;
  }

  startProcess(): Promise<void> {
    const { args = [], dir } = this.options;
    const child = spawn(
      "redis-server",
      [
        ...["--port", String(this.port), "--bind", this.host, "--save", "", "--appendonly", "no", "--loglevel", "notice"],
        ...(dir === undefined ? [] : ["--dir", dir]),
        ...args,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    this.child = child;
    return new Promise((resolve, reject) => {
      let output = "";
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(new Error(`cannot run redis-server (is it on PATH?): ${error.message}`));
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}:\n${output}`));
      });
      child.stdout!.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("Ready to accept connections")) {
          clearTimeout(timer);
          child.removeAllListeners("exit");
          resolve();
        }
      });
    });
  }

  stopProcess(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
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
  const server = new LocalRedis(await freePort(), options);
  await server.startProcess();
  return server;
}

export async function startTestRedis(): Promise<TestRedis> {
  if (process.env.REDIS_URL) return new ExternalRedis(process.env.REDIS_URL);
  if (process.env.TEST_REDIS === "container") return startContainer();
  const server = new LocalRedis(await freePort());
  await server.startProcess();
  return server;
}
