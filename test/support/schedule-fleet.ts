/**
 * Processes that fire schedules (schedule-child.js), and the checker the schedule suites share:
 * every message a schedule sent, read from the queue itself (each message's `<id>:at` field names
 * its schedule and slot), so a count holds whatever process sent it.
 */
import { spawn } from "child_process";
import type { ChildProcess } from "child_process";
import { join } from "path";
import type { RedisClientType } from "redis";
import type { ScheduleChildConfig, ScheduleChildLine } from "./schedule-child";
import { keysOf } from "./server";
import { waitFor } from "./worker";

const CHILD = join(__dirname, "schedule-child.js");
const CLOCK_SHIFT = join(__dirname, "clock-shift.js");

/** One firing process. */
export class ScheduleProcess {
  private readonly child: ChildProcess;
  private out = "";
  private err = "";
  readonly exited: Promise<number | null>;

  /** @param clockShiftMs moves the process's host clock (Date.now, new Date) this far off */
  constructor(
    readonly label: string,
    config: ScheduleChildConfig,
    clockShiftMs = 0,
  ) {
    const args = clockShiftMs === 0 ? [CHILD] : ["--require", CLOCK_SHIFT, CHILD];
    this.child = spawn(process.execPath, [...args, JSON.stringify(config)], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, RSMQ_TEST_CLOCK_SHIFT_MS: String(clockShiftMs) },
    });
    this.child.stdout!.on("data", (chunk: Buffer) => (this.out += chunk.toString("utf8")));
    this.child.stderr!.on("data", (chunk: Buffer) => (this.err += chunk.toString("utf8")));
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)));
  }

  lines(): ScheduleChildLine[] {
    const complete = this.out.slice(0, this.out.lastIndexOf("\n") + 1);
    return complete
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as ScheduleChildLine);
  }

  named(name: ScheduleChildLine["name"]): ScheduleChildLine[] {
    return this.lines().filter((line) => line.name === name);
  }

  /** What it printed on stderr. */
  get stderr(): string {
    return this.err;
  }

  ready(timeoutMs = 15_000): Promise<void> {
    return waitFor(
      () => {
        if (this.child.exitCode !== null) throw new Error(`${this.label} exited (${this.child.exitCode}): ${this.err}`);
        return this.named("ready").length > 0;
      },
      `${this.label} to start`,
      timeoutMs,
    );
  }

  /** Writes a line to its stdin (`go`). */
  say(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }

  /** Stops it cleanly (closes its stdin) and waits for the exit. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.stdin!.end();
    await this.exited;
  }

  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
    await this.exited;
  }
}

/** Processes a test started, each killed after it whatever happened. */
export class ScheduleFleet {
  private readonly processes: ScheduleProcess[] = [];

  /** Starts a process (not waiting for it: see ScheduleProcess.ready). */
  spawn(label: string, config: ScheduleChildConfig, clockShiftMs = 0): ScheduleProcess {
    const started = new ScheduleProcess(label, config, clockShiftMs);
    this.processes.push(started);
    return started;
  }

  /** Every error line any process printed, and anything on stderr. */
  problems(): string[] {
    return this.processes.flatMap((process) => [
      ...process.named("error").map((line) => `${process.label}: ${line.message}`),
      ...(process.stderr.trim() === "" ? [] : [`${process.label} stderr: ${process.stderr}`]),
    ]);
  }

  async kill(): Promise<void> {
    await Promise.all(this.processes.splice(0).map((running) => running.kill()));
  }
}

/** A message a schedule sent, as the queue holds it. */
export interface ScheduledMessage {
  id: string;
  schedule: string;
  slot: number;
}

/** Every message of `qname` that a schedule sent (its `<id>:at` field), sorted by slot. */
export async function scheduledMessages(client: RedisClientType, ns: string, qname: string): Promise<ScheduledMessage[]> {
  const fields = await client.hGetAll(keysOf(ns, qname).hash);
  const found: ScheduledMessage[] = [];
  for (const [field, value] of Object.entries(fields)) {
    if (!field.endsWith(":at")) continue;
    const attributes = JSON.parse(value) as { schedule?: string; slot?: number };
    if (attributes.schedule === undefined || attributes.slot === undefined) continue;
    found.push({ id: field.slice(0, -":at".length), schedule: attributes.schedule, slot: attributes.slot });
  }
  return found.sort((a, b) => a.slot - b.slot);
}

/** The slots that came up more than once. */
export function duplicateSlots(messages: ScheduledMessage[]): number[] {
  const seen = new Set<string>();
  const twice: number[] = [];
  for (const { schedule, slot } of messages) {
    const key = `${schedule}@${slot}`;
    if (seen.has(key)) twice.push(slot);
    seen.add(key);
  }
  return twice;
}

/** The server time (epoch ms) a message id was made at: its first 10 characters are base36 microseconds. */
export function sentAtMs(id: string): number {
  return Math.floor(parseInt(id.slice(0, 10), 36) / 1000);
}
