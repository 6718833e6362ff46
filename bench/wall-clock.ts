/**
 * Wall-clock milliseconds with sub-millisecond resolution, comparable across processes on one
 * host (and with Redis' TIME there): the process' time origin plus the monotonic clock since.
 */
export function wallClockMs(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * When a message becomes visible, in wall-clock ms: its id starts with the server's microsecond
 * TIME in base36 (10 chars), and both libraries score it floor(ms) + delay * 1000.
 */
export function dueAtMs(id: string, delaySeconds: number): number {
  return Math.floor(parseInt(id.slice(0, 10), 36) / 1000) + delaySeconds * 1000;
}
