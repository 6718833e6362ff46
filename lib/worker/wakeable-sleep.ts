/**
 * A sleep that a wake, a stop or an AbortSignal cuts short, and that is safe for any length:
 * Node fires a timer at once when its delay exceeds 2^31-1 ms (about 24.8 days), while rsmq allows
 * delays and visibility timeouts of 9999999 s (about 115 days), so long sleeps are chained.
 */

/** The longest delay Node's setTimeout honours. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Why a sleep ended. */
export type WakeReason = "timeout" | "woken" | "aborted";

export interface WakeableSleep {
  readonly done: Promise<WakeReason>;
  /** Ends the sleep now with "woken" (no effect once it has ended). */
  wake(): void;
  /** Brings the end forward to `ms` from now if that is sooner than the current end. */
  shortenTo(ms: number): void;
}

export function wakeableSleep(ms: number, signal?: AbortSignal, now: () => number = Date.now): WakeableSleep {
  let finish: (reason: WakeReason) => void = () => undefined;
  const done = new Promise<WakeReason>((resolve) => (finish = resolve));
  let timer: NodeJS.Timeout | undefined;
  let endsAt = now() + Math.max(0, ms);
  let ended = false;

  const end = (reason: WakeReason): void => {
    if (ended) return;
    ended = true;
    if (timer) clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    finish(reason);
  };
  const onAbort = (): void => end("aborted");
  const arm = (): void => {
    if (timer) clearTimeout(timer);
    const remaining = endsAt - now();
    if (remaining <= 0) return end("timeout");
    timer = setTimeout(arm, Math.min(remaining, MAX_TIMER_MS));
  };

  if (signal?.aborted) end("aborted");
  else {
    signal?.addEventListener("abort", onAbort, { once: true });
    arm();
  }
  return {
    done,
    wake: () => end("woken"),
    shortenTo(ms: number) {
      if (ended) return;
      const candidate = now() + Math.max(0, ms);
      if (candidate >= endsAt) return;
      endsAt = candidate;
      arm();
    },
  };
}
