/**
 * A fleet of Worker processes for the fleet suites: each process runs fleet-child.js (one
 * RedisSMQ instance, a few Workers on one queue) and prints what its Workers do as JSON lines,
 * read here. A process is stopped by closing its stdin (its Workers stop, it quits) or killed
 * with SIGKILL (what it held stays hidden until its visibility timeout).
 */
import { spawn } from "child_process";
import type { ChildProcess } from "child_process";
import { join } from "path";
import type { FleetChildConfig, FleetLine } from "./fleet-child";
import { waitFor } from "./worker";

const CHILD = join(__dirname, "fleet-child.js");

/** One Worker process of a fleet. */
export class FleetProcess {
  private readonly child: ChildProcess;
  private out = "";
  private readonly exited: Promise<number | null>;

  constructor(
    readonly label: string,
    config: FleetChildConfig,
  ) {
    this.child = spawn(process.execPath, [CHILD, JSON.stringify(config)], { stdio: ["pipe", "pipe", "inherit"] });
    this.child.stdout!.on("data", (chunk: Buffer) => (this.out += chunk.toString("utf8")));
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)));
  }

  /** Its process id. */
  get pid(): number {
    return this.child.pid!;
  }

  /** Every line printed so far (a partial last line is left for later). */
  lines(): FleetLine[] {
    const complete = this.out.slice(0, this.out.lastIndexOf("\n") + 1);
    return complete
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as FleetLine);
  }

  /** The lines named `name`. */
  named(name: string): FleetLine[] {
    return this.lines().filter((line) => line.name === name);
  }

  /** Resolves once its Workers have started. */
  ready(): Promise<void> {
    return waitFor(() => this.named("ready").length > 0, `${this.label} to start`, 15_000);
  }

  /** Releases every handler waiting (a gated fleet). */
  release(): void {
    this.child.stdin!.write("release\n");
  }

  /** Stops its Workers and waits for the process to exit. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.stdin!.end();
    await this.exited;
  }

  /** Kills it at once (SIGKILL): no stop, no delete, no quit. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
    await this.exited;
  }
}

/** Processes started by a test, each killed after it whatever happened. */
export class Fleet {
  private readonly processes: FleetProcess[] = [];

  /** Starts a process and waits until its Workers run. */
  async start(label: string, config: FleetChildConfig): Promise<FleetProcess> {
    const started = new FleetProcess(label, config);
    this.processes.push(started);
    await started.ready();
    return started;
  }

  /** Kills every process still running. */
  async kill(): Promise<void> {
    await Promise.all(this.processes.splice(0).map((running) => running.kill()));
  }
}
