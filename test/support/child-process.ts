/**
 * Runs a short Node program in a child process and reports whether it exited by itself within a
 * bound: what a user sees when a library leaves a socket or a timer behind (the process hangs).
 */
import { spawn } from "child_process";
import * as path from "path";

/** The built package entry (build/lib/index.js), for `require` in a child program. */
export const builtEntry = path.resolve(__dirname, "../../lib/index.js");

export interface ChildOutcome {
  /** Whether the process exited by itself within the bound (it is killed otherwise). */
  exited: boolean;
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node -e program` with `env` added to this process' environment; kills it if it has not
 * exited after `exitWithinMs`.
 */
export function runChild(program: string, env: Record<string, string> = {}, exitWithinMs = 10_000): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", program], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let exited = true;
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      exited = false;
      child.kill("SIGKILL");
    }, exitWithinMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ exited, code, stdout, stderr });
    });
  });
}
