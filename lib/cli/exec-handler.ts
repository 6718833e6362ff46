/**
 * The handler behind `worker --exec`: runs a shell command per message, the body on its stdin and
 * the message's details in RSMQ_* environment variables. Exit status 0 means handled; anything
 * else is a failure for the retry policy, except the --poison-exit status, which stops retrying.
 */
import { spawn } from "child_process";
import type { ChildProcess } from "child_process";
import type { Writable } from "stream";
import type { QueueMessage } from "../types";
import { PoisonError } from "../retry/poison-error";

export interface ExecOptions {
  /** Run by /bin/sh -c (cmd.exe on Windows). */
  command: string;
  qname: string;
  ns: string;
  /** The exit status that marks a message poison. */
  poisonExitCode?: number;
  /** Where the command's output goes. */
  stdout: Writable;
  stderr: Writable;
}

/** How much of a failed command's stderr is kept for the error (it is stored with a dead letter). */
const STDERR_TAIL = 500;

export class ExecHandler {
  private readonly children = new Set<ChildProcess>();

  constructor(private readonly options: ExecOptions) {}

  /** Commands running right now. */
  get running(): number {
    return this.children.size;
  }

  /** Kills every running command (a forced quit). */
  killAll(): void {
    for (const child of this.children) {
      try {
        // The whole group: the shell and what it started.
        if (child.pid !== undefined && process.platform !== "win32") process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
  }

  /** Runs the command for one message; resolves on exit status 0. */
  readonly handler = (message: QueueMessage): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const { command, qname, ns, poisonExitCode, stdout, stderr } = this.options;
      const child = spawn(command, {
        shell: true,
        stdio: ["pipe", "pipe", "pipe"],
        // Its own process group: a Ctrl-C on the terminal stops the worker, which lets running
        // commands finish; a second Ctrl-C kills them (killAll).
        detached: process.platform !== "win32",
        env: {
          ...process.env,
          RSMQ_QNAME: qname,
          RSMQ_NS: ns,
          RSMQ_MESSAGE_ID: message.id,
          RSMQ_RECEIVE_COUNT: String(message.rc),
          RSMQ_SENT: String(Math.floor(message.sent)),
          RSMQ_FIRST_RECEIVED: String(message.fr),
        },
      });
      this.children.add(child);
      let tail = "";
      child.stdout.on("data", (chunk: Buffer) => stdout.write(chunk));
      child.stderr.on("data", (chunk: Buffer) => {
        stderr.write(chunk);
        tail = (tail + chunk.toString("utf8")).slice(-STDERR_TAIL);
      });
      // A command that does not read its stdin closes the pipe early: that is no failure.
      child.stdin.on("error", () => undefined);
      child.stdin.end(message.message);
      child.once("error", (error) => {
        this.children.delete(child);
        reject(new Error(`cannot run ${JSON.stringify(command)}: ${error.message}`));
      });
      child.once("close", (code, signal) => {
        this.children.delete(child);
        if (code === 0) return resolve();
        const status = code === null ? `killed by ${signal}` : `exit status ${code}`;
        const detail = tail.trim() ? `: ${tail.trim().split("\n").slice(-3).join(" | ")}` : "";
        const text = `${status}${detail}`;
        reject(code !== null && code === poisonExitCode ? new PoisonError(text) : new Error(text));
      });
    });
}
