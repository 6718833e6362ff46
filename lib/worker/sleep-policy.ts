/**
 * How long the worker sleeps, as pure functions. After consecutive failed receives: 100 ms doubling
 * to 15 s, fixed on purpose, so an outage neither hammers Redis nor depends on the idle settings.
 */
export const FIRST_RETRY_MS = 100;
export const MAX_RETRY_MS = 15_000;

/** The wait after the `failures`-th consecutive failure (1 and up). */
export function receiveRetryDelay(failures: number): number {
  // Capped before exponentiation so hundreds of failures neither overflow nor wrap.
  const doublings = Math.min(Math.max(failures, 1) - 1, 20);
  return Math.min(FIRST_RETRY_MS * 2 ** doublings, MAX_RETRY_MS);
}

/** The idle sleep: the time until the next message is due, held between the floor and the cap. */
export function idleSleep(nextDueMs: number | null, minMs: number, maxMs: number): number {
  if (nextDueMs === null) return maxMs;
  return Math.min(Math.max(nextDueMs, minMs), maxMs);
}
