/**
 * The server's own counters, read before and after a measurement: CPU seconds (INFO cpu,
 * used_cpu_sys + used_cpu_user of the redis-server process) and calls per command (INFO
 * commandstats, which counts commands run inside scripts too, read with the demo's reader in
 * lib/cli/redis/command-stats.ts). Exact, and independent of the client library being measured.
 */
import type { RedisClientType } from "redis";

/** The probe's own commands, left out of every commandstats delta (countsBetween's `leaveOut`). */
export const PROBE_COMMANDS = ["info", "config|resetstat", "echo"];

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
