/**
 * What a mocha pass killed for running too long (run-passes.ts) was doing, in a few lines: the test
 * it was in, and what it was waiting on (its sockets by their endpoints, child processes, and the
 * count of each kind of pending resource, timers included). run-passes gives each pass a file
 * (RSMQ_TEST_REPORT_FILE) and, at the limit, sends SIGUSR2; the pass, through this module loaded
 * with its root hooks (server.ts), writes the report there; run-passes reads it back.
 */
import type { ChildProcess } from "child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import * as path from "path";

/** How long run-passes waits for the report before it kills the pass without one. */
const REPORT_WAIT_MS = 5_000;
const REPORT_LOOK_MS = 50;

/** The report a pass writes. */
interface PassReport {
  /** The full title of the test that started last (root hook), or "" before the first. */
  running: string;
  /** process.getActiveResourcesInfo(), counted by kind. */
  resources: Record<string, number>;
  /** Open sockets and servers, as `local -> remote` (a server: `listening on local`). */
  sockets: string[];
  /** Child processes still running, as `pid command`. */
  children: string[];
}

/** In the pass: answers SIGUSR2 with a report into RSMQ_TEST_REPORT_FILE (nothing without it). */
export function answerReportRequests(): void {
  const file = process.env.RSMQ_TEST_REPORT_FILE;
  if (!file) return;
  process.on("SIGUSR2", () => writeFileSync(file, JSON.stringify(passReport())));
}

function passReport(): PassReport {
  const resources: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) resources[kind] = (resources[kind] ?? 0) + 1;
  const sockets: string[] = [];
  const children: string[] = [];
  // The only way to name the handles themselves (their endpoints, their pids).
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  for (const handle of handles) {
    const name = (handle as object).constructor?.name;
    if (name === "Socket") {
      const socket = handle as { localPort?: number; remoteAddress?: string; remotePort?: number };
      if (socket.remotePort !== undefined) sockets.push(`${socket.localPort} -> ${socket.remoteAddress}:${socket.remotePort}`);
    } else if (name === "Server") {
      const address = (handle as { address(): unknown }).address();
      sockets.push(`listening on ${JSON.stringify(address)}`);
    } else if (name === "ChildProcess") {
      const child = handle as { pid?: number; spawnargs?: string[] };
      children.push(`${child.pid} ${(child.spawnargs ?? []).join(" ").slice(0, 200)}`);
    }
  }
  return { running: process.env.RSMQ_TEST_RUNNING ?? "", resources, sockets, children };
}

/** In run-passes: a fresh file for one pass's report, the environment that names it, and its removal. */
export function reportFileFor(): { file: string; env: NodeJS.ProcessEnv; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), "rsmq-next-pass-report-"));
  const file = path.join(dir, "report.json");
  return { file, env: { RSMQ_TEST_REPORT_FILE: file }, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Asks `child` for its report and reads it back, waiting at most REPORT_WAIT_MS (undefined when none came). */
export async function requestReport(child: ChildProcess, file: string): Promise<PassReport | undefined> {
  child.kill("SIGUSR2");
  const deadline = Date.now() + REPORT_WAIT_MS;
  while (Date.now() < deadline) {
    try {
      return JSON.parse(readFileSync(file, "utf8")) as PassReport;
    } catch {
      // Not written yet (or half written): look again.
    }
    await new Promise((resolve) => setTimeout(resolve, REPORT_LOOK_MS));
  }
  return undefined;
}

/** The report as lines for the run's output. */
export function describeReport(report: PassReport | undefined): string {
  if (report === undefined)
    return `  It wrote no report within ${REPORT_WAIT_MS} ms (its JavaScript was busy, or it had not loaded its hooks).`;
  const lines = [
    `  The test it was in: ${report.running === "" ? "(none had started)" : report.running}`,
    `  Pending: ${Object.entries(report.resources)
      .map(([kind, count]) => `${count} ${kind}`)
      .join(", ")}`,
    ...report.sockets.map((socket) => `  socket ${socket}`),
    ...report.children.map((child) => `  child process ${child}`),
  ];
  return lines.join("\n");
}
