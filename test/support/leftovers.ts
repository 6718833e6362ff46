/**
 * What the test harnesses (the local cluster, the Sentinel set-up) started and have not stopped
 * yet: redis-server processes and temp dirs. A run that ends without close() (an uncaught error,
 * process.exit, a signal) must not leave servers behind: nothing else would ever stop them, so one
 * exit hook kills whatever is still listed here.
 */
import { rmSync } from "fs";

/** Every process a harness started that may still run: what the exit hook kills. */
export const liveProcesses = new Set<{ kill(): void }>();
/** Every temp dir a harness made and has not removed yet. */
export const liveTempDirs = new Set<string>();
let exitHookInstalled = false;

/** Installs, once per process, the hook that kills what is still listed when the process ends. */
export function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", killEverything);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      killEverything();
      // Die of the signal as we would have without this listener, unless someone else handles it.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

function killEverything(): void {
  for (const running of liveProcesses) running.kill();
  for (const dir of liveTempDirs) removeTempDir(dir);
}

/** Removes a harness' temp dir and takes it off the list. */
export function removeTempDir(dir: string): void {
  liveTempDirs.delete(dir);
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // A node killed a moment ago may still have been writing there; it is only a temp dir.
  }
}
