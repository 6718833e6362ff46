/**
 * Producers and consumers in processes of their own (fleet-member.ts), for the faults where a
 * process dies or where rsmq 0.12.4 and rsmq-next run side by side. Each member's reports go
 * into the scenario's Ledger as they arrive; every wait on a member is bounded.
 */
import { fork } from "child_process";
import type { ChildProcess } from "child_process";
import { join } from "path";
import type { Ledger } from "./ledger";
import type { FleetReport, MemberSetup } from "./fleet-protocol";

const MEMBER = join(__dirname, "fleet-member.js");

export class FleetMember {
  private stderr = "";
  private readonly exited: Promise<number | string | null>;

  private constructor(
    readonly setup: MemberSetup,
    private readonly child: ChildProcess,
    ledger: Ledger,
  ) {
    child.stderr!.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    child.on("message", (report: FleetReport) => enter(ledger, report));
    this.exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code)));
  }

  /** Starts a member and waits (at most `timeoutMs`) until it is connected and running. */
  static async start(setup: MemberSetup, ledger: Ledger, timeoutMs = 10_000): Promise<FleetMember> {
    const child = fork(MEMBER, [JSON.stringify(setup)], { stdio: ["ignore", "ignore", "pipe", "ipc"] });
    const member = new FleetMember(setup, child, ledger);
    const ready = new Promise<void>((resolve) => child.on("message", (report: FleetReport) => report.kind === "ready" && resolve()));
    const outcome = await Promise.race([
      ready.then(() => "ready"),
      member.exited.then((code) => `exited (${code}) before it was ready: ${member.stderr}`),
      sleep(timeoutMs).then(() => `not ready after ${timeoutMs} ms: ${member.stderr}`),
    ]);
    if (outcome !== "ready") {
      child.kill("SIGKILL");
      throw new Error(`fleet member ${setup.name} (${setup.role}) ${outcome}`);
    }
    return member;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Asks the member to finish and exit; fails (and kills it) if it has not exited after `timeoutMs`. */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.send("stop");
    const code = await Promise.race([this.exited, sleep(timeoutMs).then(() => "timeout" as const)]);
    if (code === "timeout") {
      this.child.kill("SIGKILL");
      throw new Error(`fleet member ${this.setup.name} did not exit within ${timeoutMs} ms of "stop": ${this.stderr}`);
    }
    if (code !== 0) throw new Error(`fleet member ${this.setup.name} exited with ${code}: ${this.stderr}`);
  }

  /** The fault: SIGKILL, and wait for the process to be gone. */
  async kill(): Promise<void> {
    this.child.kill("SIGKILL");
    await this.exited;
  }
}

function enter(ledger: Ledger, report: FleetReport): void {
  switch (report.kind) {
    case "sent":
      return ledger.sent(report.body, report.at);
    case "acknowledged":
      return ledger.acknowledged(report.body, report.id);
    case "refused":
      return ledger.refused(report.body, report.error);
    case "delivered":
      return ledger.delivered(report.consumer, { message: report.body, id: report.id, rc: report.rc }, report.at);
    case "handled":
      return ledger.handled(report.consumer, report.body, report.at);
    case "deleted":
      return ledger.deleted(report.consumer, report.body, report.at);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
