/**
 * What reaches the server, read from the server itself: MONITOR lists every command with its
 * origin (a client address, or `lua` for calls made inside a script), and INFO commandstats
 * counts calls per command. Both are exact.
 */
import { randomBytes } from "crypto";
import type { RedisClientType } from "redis";
import { openMonitor } from "./monitor-socket";
import { plainClient, testRedis } from "./server";

export interface MonitoredCommand {
  /** Lower-case command name. */
  name: string;
  /** True when a script issued it. */
  fromScript: boolean;
}

/** The commands the server executed while `action` ran, the monitor's own marker excluded. */
export async function monitor(action: () => Promise<unknown>): Promise<MonitoredCommand[]> {
  const seen: MonitoredCommand[] = [];
  const token = `wire-marker-${randomBytes(6).toString("hex")}`;
  let markerSeen: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (markerSeen = resolve));
  const { host, port } = testRedis();
  const watcher = await openMonitor(host, port, (line) => {
    if (line.includes(token)) {
      markerSeen();
      return;
    }
    const match = /^\d+\.\d+ \[\d+ ([^\]]+)\] "([^"]+)"/.exec(line);
    if (match) seen.push({ name: match[2].toLowerCase(), fromScript: match[1] === "lua" });
  });
  const marker = await plainClient();
  try {
    await action();
    await marker.sendCommand(["ECHO", token]);
    await done;
    return seen;
  } finally {
    watcher.destroy();
    await marker.quit();
  }
}

/** Commands sent by clients (not by scripts), by name. */
export function clientCommands(commands: MonitoredCommand[]): string[] {
  return commands.filter((command) => !command.fromScript).map((command) => command.name);
}

/** INFO commandstats as `{ command: calls }`. */
export async function commandStats(client: RedisClientType): Promise<Record<string, number>> {
  const info = await client.info("commandstats");
  const stats: Record<string, number> = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) stats[match[1]] = Number(match[2]);
  return stats;
}

/** Calls per command made while `action` ran, from INFO commandstats (the probe's own calls removed). */
export async function commandStatsDuring(action: () => Promise<unknown>): Promise<Record<string, number>> {
  const probe = await plainClient();
  try {
    await probe.sendCommand(["CONFIG", "RESETSTAT"]);
    await action();
    const stats = await commandStats(probe);
    delete stats.info;
    delete stats["config|resetstat"];
    return stats;
  } finally {
    await probe.quit();
  }
}
