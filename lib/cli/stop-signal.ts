/**
 * Ctrl-C (SIGINT) and SIGTERM as an AbortSignal, for commands that run until stopped. A second
 * Ctrl-C while stopping calls `onForce` (quit now), as people expect of a terminal program.
 *
 * A command a signal stopped cleans up (finishes or stops its work, closes its connections, stops
 * a server it started) and then ends the way the shell convention asks of a program a signal
 * stopped: by that same signal, so the shell reports 128 + n (130 for SIGINT, 143 for SIGTERM) and
 * a script's `cmd && next`, or a loop around it, stops too. The first such signal is remembered
 * for the whole process; {@link exitBySignal} ends it.
 */
import { constants } from "os";

export type StopSignalName = "SIGINT" | "SIGTERM";

export interface StopSignal {
  readonly signal: AbortSignal;
  /** Removes the handlers again. */
  dispose(): void;
}

let stoppedBy: StopSignalName | undefined;

/** The first stop signal this process received while a command listened, if any. */
export function stopSignalReceived(): StopSignalName | undefined {
  return stoppedBy;
}

/**
 * Thrown to unwind a command that a stop signal interrupted part way: no error (nothing is
 * printed for it), the process then ends by the signal.
 */
export class Interrupted extends Error {
  constructor(readonly signal: StopSignalName) {
    super(`interrupted by ${signal}`);
    this.name = "Interrupted";
  }
}

export function stopOnSignals(onForce?: (signal: StopSignalName) => void): StopSignal {
  const controller = new AbortController();
  const onSignal = (received: NodeJS.Signals): void => {
    const signal = received === "SIGTERM" ? "SIGTERM" : "SIGINT";
    stoppedBy ??= signal;
    if (!controller.signal.aborted) controller.abort();
    else onForce?.(signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    dispose() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/** The exit status a shell reports for a process `signal` ended: 128 + its number. */
export function exitCodeFor(signal: StopSignalName): number {
  return 128 + constants.signals[signal];
}

/**
 * Ends the process by `signal`, once what it wrote has reached stdout and stderr. Where a process
 * cannot be ended by a signal of its own (Windows), it exits with 128 + n instead.
 */
export function exitBySignal(signal: StopSignalName): void {
  process.exitCode = exitCodeFor(signal);
  if (process.platform === "win32") return;
  const flushed = (stream: NodeJS.WriteStream): Promise<void> =>
    new Promise((resolve) => (stream.writableEnded || stream.destroyed ? resolve() : stream.write("", () => resolve())));
  void Promise.all([flushed(process.stdout), flushed(process.stderr)]).then(() => {
    // With no listener left, the signal's default action applies: the process ends by it.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
}

/** Waits `ms`, or less when `signal` aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
