/**
 * The server's own counters: INFO commandstats, read before and after a window. The counts cover
 * every client of the server and the commands run inside scripts; the INFO calls made to read
 * them are left out. The test suites' wire checks and the bench read the counters with these
 * functions too.
 */
import type { RedisClientType } from "redis";
import { pause } from "../stop-signal";

/** Calls per command, by the lower-case name INFO commandstats gives it (`evalsha`, `config|resetstat`). */
export type CommandCounts = Record<string, number>;

/** INFO commandstats' text (`cmdstat_<name>:calls=<n>,usec=...` lines) as calls per command. */
export function parseCommandStats(info: string): CommandCounts {
  const counts: CommandCounts = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) counts[match[1]] = Number(match[2]);
  return counts;
}

export async function readCommandStats(client: RedisClientType): Promise<CommandCounts> {
  return parseCommandStats(String(await client.sendCommand<string>(["INFO", "commandstats"])));
}

/**
 * Calls per command between two readings, zeros dropped, and the commands in `leaveOut` (by
 * default the readings' own INFO) dropped too.
 */
export function countsBetween(before: CommandCounts, after: CommandCounts, leaveOut: readonly string[] = ["info"]): CommandCounts {
  const delta: CommandCounts = {};
  for (const [name, calls] of Object.entries(after)) {
    if (leaveOut.includes(name)) continue;
    const made = calls - (before[name] ?? 0);
    if (made > 0) delta[name] = made;
  }
  return delta;
}

export function totalOf(counts: CommandCounts): number {
  return Object.values(counts).reduce((sum, calls) => sum + calls, 0);
}

/** `evalsha 79, exec 79, ...`, largest first. */
export function describeCounts(counts: CommandCounts): string {
  const entries = Object.entries(counts).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  return entries.length === 0 ? "none" : entries.map(([name, calls]) => `${name} ${calls}`).join(", ");
}

/** Commands counted over a window. */
export interface WindowCounts {
  /** How long the window lasted, ms. */
  ms: number;
  commands: number;
  byCommand: CommandCounts;
}

/**
 * Counts the commands the server runs while `action` runs. With `onTick`, reads the counters
 * about twice a second for a live display (those INFO calls are not counted).
 */
export async function measure(
  client: RedisClientType,
  action: () => Promise<unknown>,
  onTick?: (commands: number, ms: number) => void,
): Promise<WindowCounts> {
  const before = await readCommandStats(client);
  const startedAt = Date.now();
  const done = new AbortController();
  const ticker = (async () => {
    if (!onTick) return;
    for (;;) {
      await pause(400, done.signal);
      if (done.signal.aborted) return;
      const now = await readCommandStats(client);
      onTick(totalOf(countsBetween(before, now)), Date.now() - startedAt);
    }
  })();
  let ms: number;
  try {
    await action();
  } finally {
    ms = Date.now() - startedAt;
    done.abort();
    await ticker.catch(() => undefined);
  }
  const byCommand = countsBetween(before, await readCommandStats(client));
  return { ms, commands: totalOf(byCommand), byCommand };
}

/** Commands per hour at the rate of a window: `commands` in `ms`, scaled to an hour. */
export function perHour(commands: number, ms: number): number {
  return ms > 0 ? Math.round((commands * 3_600_000) / ms) : 0;
}
