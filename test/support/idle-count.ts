/**
 * Every command an idle RedisSMQ instance sends over a real window, at its real defaults: a
 * redis-server of its own (so the count holds nothing else), the instance and its Workers in a
 * child process (idle-instance.ts), and MONITOR over a window that opens once every Worker is past
 * start-up and asleep, and closes once every one is asleep again, so no poll is cut in two.
 *
 * It takes minutes of waiting and no work, so a suite starts it at the beginning of the run
 * (`IdleCount.start` in a root `before`) and reads `result` at the end: the wait overlaps the rest.
 */
import { spawn } from "child_process";
import type { ChildProcess } from "child_process";
import { join } from "path";
import { startRedisServer } from "../../lib/cli/redis/redis-server";
import type { RedisServerProcess } from "../../lib/cli/redis/redis-server";
import type { IdleInstanceConfig } from "./idle-instance";
import { MonitorWatch } from "./monitor-socket";
import type { MonitoredLine } from "./monitor-socket";
import { expectQuiet, otherClients } from "./quiet-server";
import { delay, loadPollScriptsAt, waitFor } from "./worker";

/** One Worker event, as the child printed it. */
export interface ChildEvent {
  /** The Worker's index (-1: the instance's own `error` event). */
  worker: number;
  name: string;
  args: unknown[];
  /** Epoch ms (the child runs on this machine's clock). */
  at: number;
}

export interface IdleCountOptions {
  workers: number;
  client: IdleInstanceConfig["client"];
  /** How long the count runs at least (it then waits for every Worker to be asleep). */
  windowMs: number;
  /** The Workers' cap: their maxIdleSleepMs, which the child leaves at its default. */
  capMs: number;
  /** Each queue has 3 schedules defined (see IdleInstanceConfig.schedules). */
  schedules?: boolean;
}

export interface IdleResult {
  /** Every command clients sent in the window, in order (commands scripts ran inside Redis left out). */
  commands: MonitoredLine[];
  /** Commands that scripts ran inside Redis in the window (TIME, HMGET, ...): counted apart. */
  inScripts: number;
  windowMs: number;
  /** The Workers' events in the window. */
  events: ChildEvent[];
  /** Everything the child printed on stderr. */
  stderr: string;
}

/** How long start-up may take: connecting, the first receives, the wake subscription. */
const STARTUP_MS = 30_000;

export class IdleCount {
  readonly result: Promise<IdleResult>;
  private server: RedisServerProcess | undefined;
  private child: ChildProcess | undefined;
  private monitor: MonitorWatch | undefined;
  private readonly events: ChildEvent[] = [];
  private stderr = "";
  private closed = false;

  private constructor(private readonly options: IdleCountOptions) {
    this.result = this.run();
    // Read by a test later, or never (a --grep that leaves it out): never an unhandled rejection.
    this.result.catch(() => undefined);
  }

  static start(options: IdleCountOptions): IdleCount {
    return new IdleCount(options);
  }

  /** Stops the child and the server; a count still running rejects. */
  async close(): Promise<void> {
    this.closed = true;
    await this.monitor?.close().catch(() => undefined);
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.stdin?.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
    const server = this.server;
    this.server = undefined;
    await server?.stop("SIGKILL");
  }

  private async run(): Promise<IdleResult> {
    try {
      const server = (this.server = await startRedisServer());
      // So no first NOSCRIPT and its EVAL fall into the count.
      await loadPollScriptsAt(server.url);
      // The server is this count's alone; anything connected before the child would not be the instance's.
      const others = await otherClients([server]);
      this.child = this.spawnChild(server);
      await this.until(
        () => this.everyWorker((mine) => mine.filter((event) => event.name === "receive").length >= 2 && this.asleepAtCap(mine)),
        "every Worker past start-up (its first receive and the one its wake subscription's wake causes) and asleep at its cap",
        STARTUP_MS,
      );
      this.monitor = await MonitorWatch.open([server]);
      const startedAt = Date.now();
      await delay(this.options.windowMs);
      await this.until(() => this.everyWorker((mine) => this.asleepAtCap(mine)), "every Worker asleep again", this.options.capMs + 10_000);
      const endedAt = Date.now();
      const seen = await this.monitor.commands();
      expectQuiet(seen, others);
      const errors = this.events.filter((event) => event.name === "error");
      if (errors.length > 0) throw new Error(`the idle instance reported errors: ${JSON.stringify(errors)}; stderr: ${this.stderr}`);
      return {
        commands: seen.filter((command) => !command.fromScript),
        inScripts: seen.filter((command) => command.fromScript).length,
        windowMs: endedAt - startedAt,
        events: this.events.filter((event) => event.at >= startedAt && event.at <= endedAt),
        stderr: this.stderr,
      };
    } finally {
      await this.close();
    }
  }

  private spawnChild(server: RedisServerProcess): ChildProcess {
    const config: IdleInstanceConfig = {
      host: server.host,
      port: server.port,
      ns: "idle",
      workers: this.options.workers,
      client: this.options.client,
      schedules: this.options.schedules,
    };
    const child = spawn(process.execPath, [join(__dirname, "idle-instance.js"), JSON.stringify(config)], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let pending = "";
    child.stdout.on("data", (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) if (line.trim() !== "") this.events.push(JSON.parse(line) as ChildEvent);
    });
    child.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    return child;
  }

  /** Whether `check` holds for the events of every Worker. */
  private everyWorker(check: (events: ChildEvent[]) => boolean): boolean {
    for (let index = 0; index < this.options.workers; index++) {
      if (!check(this.events.filter((event) => event.worker === index))) return false;
    }
    return true;
  }

  /** Whether a Worker's last act was to fall asleep for its whole cap. */
  private asleepAtCap(events: ChildEvent[]): boolean {
    const last = events[events.length - 1];
    return last?.name === "sleep" && last.args[0] === this.options.capMs;
  }

  private until(condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
    return waitFor(
      () => {
        if (this.closed) throw new Error(`the idle count was closed while waiting for ${what}`);
        const child = this.child;
        if (child && (child.exitCode !== null || child.signalCode !== null)) {
          throw new Error(`the idle instance exited (${child.exitCode ?? child.signalCode}) while waiting for ${what}: ${this.stderr}`);
        }
        return condition();
      },
      `${what} (idle instance with ${this.options.workers} Worker(s), ${this.options.client})`,
      timeoutMs,
    );
  }
}
