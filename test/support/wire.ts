/**
 * What reaches the server, read from the server itself: MONITOR lists every command with its
 * origin (a client address, or `lua` for calls made inside a script), and INFO commandstats
 * counts calls per command. Both are exact.
 *
 * On the cluster target both read every master of the cluster (where clients send commands and
 * scripts run), so "one EVALSHA" or "nothing sent" holds for the cluster as a whole. Pass
 * `{ server: "single" }` to read the single server instead, whatever the target (rsmq 0.12.4).
 */
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import { countsBetween, readCommandStats } from "../../lib/cli/redis/command-stats";
import { MonitorWatch } from "./monitor-socket";
import { expectQuiet, otherClients } from "./quiet-server";
import type { OtherClients } from "./quiet-server";
import { onCluster, testCluster, testRedis } from "./server";

export interface MonitoredCommand {
  /** Lower-case command name. */
  name: string;
  /** True when a script issued it. */
  fromScript: boolean;
}

export interface WireOptions {
  /** "target" (default): the run's target, every master of a cluster; "single": the single server. */
  server?: "target" | "single";
  /**
   * The connections that were open before the test opened its own (`clientsNow()`): a command
   * from one of them inside the window fails the count, saying the server was not quiet.
   */
  others?: OtherClients;
  /**
   * Count only what these connections ("host:port" as the server sees them, see connectionsNamed)
   * sent, and what scripts ran: for a window in which other clients of the process may be busy
   * (reconnecting after a server restart, say) with commands of their own.
   */
  only?: readonly string[];
}

/** The addresses ("host:port") of the single server's connections named `name` (CLIENT SETNAME). */
export async function connectionsNamed(name: string): Promise<string[]> {
  const { host, port } = testRedis();
  const client = await nodeClient({ host, port });
  try {
    const list = String(await client.sendCommand(["CLIENT", "LIST"]));
    return list
      .split("\n")
      .filter((line) => line.split(" ").includes(`name=${name}`))
      .map((line) => /(?:^| )addr=(\S+)/.exec(line)?.[1] ?? "")
      .filter((addr) => addr !== "");
  } finally {
    await client.quit();
  }
}

/** The probe's own commands, left out of every count. */
const PROBE_COMMANDS = ["info", "config|resetstat"];

/** The servers to read: the single server, or every live master of the cluster. */
async function serversToRead(options: WireOptions): Promise<Array<{ host: string; port: number }>> {
  if (onCluster() && options.server !== "single") {
    return (await testCluster().masters()).map(({ host, port }) => ({ host, port }));
  }
  const { host, port } = testRedis();
  return [{ host, port }];
}

/** The connections open now on the servers a count reads: pass them as `others` once the test's own are open. */
export async function clientsNow(options: WireOptions = {}): Promise<OtherClients> {
  return otherClients(await serversToRead(options));
}

/** A plain client on one server (one node of a cluster), connected. */
async function nodeClient({ host, port }: { host: string; port: number }): Promise<RedisClientType> {
  const client = createClient({ url: `redis://${host}:${port}` }) as RedisClientType;
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

/**
 * The commands the server(s) executed while `action` ran, the monitor's own markers excluded. On
 * a cluster, the commands of all masters merged in the order of their MONITOR timestamps (all
 * nodes run on this machine, so they share one clock).
 */
export async function monitor(action: () => Promise<unknown>, options: WireOptions = {}): Promise<MonitoredCommand[]> {
  const watch = await MonitorWatch.open(await serversToRead(options));
  try {
    await action();
    const seen = await watch.commands();
    if (options.others) expectQuiet(seen, options.others);
    const only = options.only;
    return seen
      .filter((line) => !only || line.fromScript || only.includes(line.client))
      .map(({ args, fromScript }) => ({ name: args[0], fromScript }));
  } finally {
    await watch.close();
  }
}

/** Commands sent by clients (not by scripts), by name. */
export function clientCommands(commands: MonitoredCommand[]): string[] {
  return commands.filter((command) => !command.fromScript).map((command) => command.name);
}

/**
 * Calls per command made while `action` ran, from INFO commandstats (the probe's own calls
 * removed); summed over every master of a cluster. With `others`, a MONITOR beside it (opened
 * before the counters are reset, its markers sent after they are read) checks that none of them
 * sent a command meanwhile.
 */
export async function commandStatsDuring(action: () => Promise<unknown>, options: WireOptions = {}): Promise<Record<string, number>> {
  const servers = await serversToRead(options);
  const probes = await Promise.all(servers.map(nodeClient));
  let watch: MonitorWatch | undefined;
  try {
    if (options.others) watch = await MonitorWatch.open(servers);
    await Promise.all(probes.map((probe) => probe.sendCommand(["CONFIG", "RESETSTAT"])));
    await action();
    const stats: Record<string, number> = {};
    for (const probe of probes) {
      const calls = countsBetween({}, await readCommandStats(probe), PROBE_COMMANDS);
      for (const [command, count] of Object.entries(calls)) stats[command] = (stats[command] ?? 0) + count;
    }
    if (watch && options.others) expectQuiet(await watch.commands(), options.others);
    return stats;
  } finally {
    await watch?.close();
    await Promise.all(probes.map((probe) => probe.quit()));
  }
}
