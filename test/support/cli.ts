/**
 * Runs the built command line (dist/cli/main.js) as a child process against the test server, the
 * way a user or a script does: arguments, stdin, environment in; exit code, stdout, stderr out.
 * `npm test` builds dist/ first; by hand, run `npx tsc -p tsconfig.json` before the tests.
 */
import { spawn } from "child_process";
import type { ChildProcess } from "child_process";
import { connect } from "net";
import { freePort } from "./redis-server";
import * as path from "path";
import { onCluster, testCluster, testRedis } from "./server";

/** dist/cli/main.js at the package root (this file runs from build/test/support/). */
export const CLI = path.resolve(__dirname, "../../../dist/cli/main.js");

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Written to stdin, which is then closed (stdin is an empty pipe otherwise). */
  input?: string;
  /** Added to a clean environment (no REDIS_URL, RSMQ_NS, colour variables from the caller). */
  env?: Record<string, string>;
  /** Kill the process after this long. @default 15000 */
  timeoutMs?: number;
}

export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ["REDIS_URL", "RSMQ_NS", "FORCE_COLOR", "NO_COLOR", "RSMQ_NEXT_DEMO_SCALE"]) delete env[name];
  return { ...env, ...extra };
}

/** Starts the CLI; the caller reads its streams and waits with `finished`. */
export function startCli(
  args: readonly string[],
  options: RunOptions = {},
): { child: ChildProcess; finished: Promise<CliResult>; output(): { stdout: string; stderr: string } } {
  const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv(options.env), stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  child.stdin.on("error", () => undefined);
  child.stdin.end(options.input ?? "");
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 15_000);
  const finished = new Promise<CliResult>((resolve) => {
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, finished, output: () => ({ stdout, stderr }) };
}

/** Runs the CLI to the end. */
export function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  return startCli(args, options).finished;
}

/** The connection options for the run's target and a namespace, as CLI arguments (one root node and --cluster on a cluster). */
export function at(ns: string): string[] {
  if (onCluster()) return ["--cluster", "--url", testCluster().rootNodes()[0].url, "--ns", ns];
  return ["--url", testRedis().url, "--ns", ns];
}

/** A TCP port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export const unusedPort = freePort;

/** Parses stdout as JSON, with the output in the failure message when it is not. */
export function json<T = any>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}

/** The JSON values of a JSON-lines output. */
export function jsonLines<T = any>(text: string): T[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
