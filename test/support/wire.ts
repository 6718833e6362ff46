/**
 * What reaches the server, read from the server itself: MONITOR lists every command with its
 * origin (a client address, or `lua` for calls made inside a script), and INFO commandstats
 * counts calls per command. Both are exact.
 */
import { randomBytes } from "crypto";
import { connect, type Socket } from "net";
import type { RedisClientType } from "redis";
import { plainClient, testRedis } from "./server";

export interface MonitoredCommand {
  /** Lower-case command name. */
  name: string;
  /** True when a script issued it. */
  fromScript: boolean;
}

/**
 * Opens a raw MONITOR connection (node-redis v4 has no MONITOR) and calls `onLine` with each
 * monitored command line. Resolves once the server has acknowledged MONITOR.
 */
function openMonitor(onLine: (line: string) => void): Promise<Socket> {
  const { host, port } = testRedis();
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    let buffer = "";
    let acknowledged = false;
    socket.once("error", reject);
    socket.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      let end: number;
      while ((end = buffer.indexOf("\r\n")) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!acknowledged && line === "+OK") {
          acknowledged = true;
          resolve(socket);
        } else if (line.startsWith("+")) {
          onLine(line.slice(1));
        }
      }
    });
    socket.write("MONITOR\r\n");
  });
}

/** The commands the server executed while `action` ran, the monitor's own marker excluded. */
export async function monitor(action: () => Promise<unknown>): Promise<MonitoredCommand[]> {
  const seen: MonitoredCommand[] = [];
  const token = `wire-marker-${randomBytes(6).toString("hex")}`;
  let markerSeen: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (markerSeen = resolve));
  const watcher = await openMonitor((line) => {
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
