/**
 * The server's own counters, read before and after a measurement: CPU seconds (INFO cpu,
 * used_cpu_sys + used_cpu_user of the redis-server process) and calls per command (INFO
 * commandstats, which counts commands run inside scripts too). Exact, and independent of the
 * client library being measured.
 */
import type { RedisClientType } from "redis";

/** The probe's own commands, removed from every commandstats delta. */
const PROBE_COMMANDS = new Set(["info", "config|resetstat", "echo"]);

/** Server CPU time (user + system) so far, in microseconds. */
export async function serverCpuMicros(probe: RedisClientType): Promise<number> {
  const info = await probe.info("cpu");
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:([0-9.]+)`, "m").exec(info);
    if (!match) throw new Error(`INFO cpu has no ${name}`);
    return Number(match[1]);
  };
  return Math.round((field("used_cpu_sys") + field("used_cpu_user")) * 1e6);
}

/** INFO commandstats as `{ command: calls }`, the probe's own commands left out. */
export async function commandCalls(probe: RedisClientType): Promise<Record<string, number>> {
  const info = await probe.info("commandstats");
  const calls: Record<string, number> = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (!PROBE_COMMANDS.has(match[1])) calls[match[1]] = Number(match[2]);
  }
  return calls;
}

/** Calls per command between two commandCalls() readings (only commands that were called). */
export function callsBetween(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [name, calls] of Object.entries(after)) {
    const made = calls - (before[name] ?? 0);
    if (made > 0) delta[name] = made;
  }
  return delta;
}

export function totalCalls(calls: Record<string, number>): number {
  return Object.values(calls).reduce((sum, value) => sum + value, 0);
}
