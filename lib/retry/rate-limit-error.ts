/**
 * Thrown by a Worker's handler when a downstream service said "too many requests" (an HTTP 429):
 * the message is not a failure. The Worker blocks the queue's receives for `ms` (on every process,
 * as rateLimitQueueAsync does), hides the message until the block ends without spending one of its
 * deliveries (its receive count `rc` is given back), and emits `rateLimited` instead of `failed`:
 * no retry, no backoff, never dead-lettered, not counted as a failure. Without `ms` nothing is
 * blocked and the message comes back after 1 s.
 *
 * @example
 * const response = await fetch(url);
 * if (response.status === 429) throw new RateLimitError(Number(response.headers.get("retry-after")) * 1000);
 */
export class RateLimitError extends Error {
  /** Milliseconds to block the queue's receives for (a non-negative integer); undefined: no block, the message is back after 1 s. */
  readonly ms: number | undefined;

  /**
   * @param ms how long the queue's receives are blocked, in milliseconds (a non-negative integer), if at all
   * @param message the error's message (a default one names `ms`)
   * @throws RangeError when `ms` is given and is not a non-negative safe integer
   */
  constructor(ms?: number, message?: string) {
    if (ms !== undefined && !(Number.isSafeInteger(ms) && ms >= 0)) {
      throw new RangeError(`Expected \`ms\` of RateLimitError to be an integer from 0 and up, got \`${String(ms)}\` (${typeof ms})`);
    }
    super(message ?? (ms === undefined ? "rate limited" : `rate limited for ${ms} ms`));
    this.name = "RateLimitError";
    this.ms = ms;
  }
}

/** Whether a handler's error asks for a rate-limit bounce rather than a retry. */
export function isRateLimitError(error: unknown): error is RateLimitError {
  return error instanceof RateLimitError;
}
