/**
 * Ctrl-C (SIGINT) and SIGTERM as an AbortSignal, for commands that run until stopped. A second
 * Ctrl-C while stopping calls `onForce` (quit now), as people expect of a terminal program.
 */
export interface StopSignal {
  readonly signal: AbortSignal;
  /** Removes the handlers again. */
  dispose(): void;
}

export function stopOnSignals(onForce?: () => void): StopSignal {
  const controller = new AbortController();
  const onSignal = (): void => {
    if (!controller.signal.aborted) controller.abort();
    else onForce?.();
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
