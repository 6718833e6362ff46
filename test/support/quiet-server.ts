/**
 * An exact command count reads the whole server, so it holds only while nothing but the code
 * under test sends commands. `otherClients()` lists the connections open before a test opens its
 * own (left over from earlier tests, or another process); `expectQuiet()` fails, naming them, when
 * one of them sent a command inside a counted window, so a polluted count says so instead of
 * failing as a wrong count.
 */
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import type { MonitoredLine } from "./monitor-socket";

/**
 * Connections open on the servers at one moment, by server port and client address ("6390
 * 127.0.0.1:50412", as MONITOR names them), with their CLIENT LIST line.
 */
export type OtherClients = ReadonlyMap<string, string>;

/** The connections open now on `servers` (every master of a cluster), the probe's own left out. */
export async function otherClients(servers: ReadonlyArray<{ host: string; port: number }>): Promise<OtherClients> {
  const clients = new Map<string, string>();
  for (const { host, port } of servers) {
    const probe = createClient({ url: `redis://${host}:${port}` }) as RedisClientType;
    probe.on("error", () => undefined);
    await probe.connect();
    try {
      const own = await probe.sendCommand<number>(["CLIENT", "ID"]);
      const list = await probe.sendCommand<string>(["CLIENT", "LIST"]);
      for (const line of list.split("\n").filter((entry) => entry.trim() !== "")) {
        if (new RegExp(`(^| )id=${own} `).test(line)) continue;
        const address = / addr=(\S+)/.exec(line)?.[1];
        // What says who it is: its id, name, age and last command.
        const who = ["id", "name", "age", "cmd"].map((field) => new RegExp(`(?:^| )(${field}=\\S*)`).exec(line)?.[1]).filter(Boolean);
        if (address) clients.set(`${port} ${address}`, who.join(" "));
      }
    } finally {
      await probe.quit();
    }
  }
  return clients;
}

/** Throws when a client command in `commands` came from one of `others`, naming each such client and what it sent. */
export function expectQuiet(commands: ReadonlyArray<MonitoredLine>, others: OtherClients): void {
  const sent = new Map<string, string[]>();
  for (const command of commands) {
    const key = `${command.port} ${command.client}`;
    if (command.fromScript || !others.has(key)) continue;
    sent.set(key, [...(sent.get(key) ?? []), command.args[0]]);
  }
  if (sent.size === 0) return;
  const lines = [...sent].map(([key, names]) => {
    const counts = new Map<string, number>();
    for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
    const what = [...counts].map(([name, count]) => `${name} x${count}`).join(", ");
    return `  server port ${key.replace(" ", ", client ")} (${others.get(key)}): ${what}`;
  });
  throw new Error(
    "The server was not quiet: a connection open before this test's own sent commands inside the counted window, " +
      `so the count is not the code under test's alone:\n${lines.join("\n")}`,
  );
}
