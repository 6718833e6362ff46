/**
 * Runs the built command line on a pseudo-terminal, as a person's shell does: stdin, stdout and
 * stderr are a terminal, what is typed goes through the terminal (Ctrl-C is "\x03", which the
 * terminal turns into SIGINT for the foreground processes) and the output is what the screen gets,
 * echo included. The terminal is util-linux `script`, found on every Linux; elsewhere the tests
 * that need it skip, saying why.
 */
import { spawn, spawnSync } from "child_process";
import type { ChildProcess } from "child_process";
import { CLI, cleanEnv } from "./cli";

export interface TerminalRun {
  readonly child: ChildProcess;
  /** Types into the terminal. */
  type(text: string): void;
  /** The screen's output so far, colour codes included. */
  output(): string;
  /** The exit status the shell sees (128 + n when the command died of signal n), and the output. */
  readonly finished: Promise<{ status: number | null; output: string }>;
}

/** Why the terminal tests cannot run here, or undefined when they can. */
export function terminalUnavailableReason(): string | undefined {
  const probe = spawnSync("script", ["--version"], { encoding: "utf8" });
  if (probe.error || !/util-linux/.test(`${probe.stdout}${probe.stderr}`)) return "needs util-linux `script` for a pseudo-terminal";
  return undefined;
}

/** A word for `sh -c`, quoted. */
function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Starts `rsmq-next <args>` on a terminal; it is killed after `timeoutMs`. */
export function startInTerminal(args: readonly string[], options: { env?: Record<string, string>; timeoutMs?: number } = {}): TerminalRun {
  const command = ["exec", process.execPath, CLI, ...args].map(shellQuote).join(" ");
  // -e: exit with the command's status; -q: no "Script started" lines; /dev/null: no typescript file.
  const child = spawn("script", ["-qec", command, "/dev/null"], {
    env: { TERM: "xterm", ...cleanEnv(options.env) },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stdin.on("error", () => undefined);
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
  const finished = new Promise<{ status: number | null; output: string }>((resolve) => {
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, output });
    });
  });
  return { child, type: (text) => child.stdin.write(text), output: () => output, finished };
}

/** The output without colour and cursor codes, and with the terminal's CRLF as LF. */
export function plainScreen(output: string): string {
  return output.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b[78]/g, "").replace(/\r\n/g, "\n");
}
