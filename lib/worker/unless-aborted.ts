/** A call's outcome, or nothing as soon as a signal aborts: how the loop leaves a call that hangs. */

/**
 * `promise`'s outcome, or undefined as soon as `signal` aborts (whichever comes first).
 *
 * While Redis is down a call waits in node-redis' offline queue until the server is back; a stop
 * must not wait for that. A late rejection after the abort is dropped: no unhandled rejection.
 */
export function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = (): void => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
