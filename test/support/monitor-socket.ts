/**
 * MONITOR, for the tests and the bench (node-redis v4 has no MONITOR): the raw connection
 * (`openMonitor`), the line parser, and a watch over one or more servers with markers that tell
 * when everything sent so far has been seen (`MonitorWatch`).
 */
import { randomBytes } from "crypto";
import { connect } from "net";
import type { Socket } from "net";
import { createClient } from "redis";
import type { RedisClientType } from "redis";

/**
 * A raw MONITOR connection: every command line the server reports, handed to `onLine` without
 * its leading "+". Resolves once the server has acknowledged MONITOR.
 */
export function openMonitor(host: string, port: number, onLine: (line: string) => void): Promise<Socket> {
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

/** One command a MONITOR reported. */
export interface MonitoredLine {
  /** The port of the server (cluster node) that ran it. */
  port: number;
  /** Server time, seconds with microseconds (test nodes all run on this machine's clock). */
  time: number;
  /** Arguments as sent (backslash escapes kept), the command name lower-cased. */
  args: string[];
  /** True when a script issued it. */
  fromScript: boolean;
  /** The connection that sent it, "host:port" as the server sees it ("lua" for a script's call). */
  client: string;
}

/** Splits a MONITOR line into its parts; undefined for anything else. */
export function parseMonitorLine(line: string, port: number): MonitoredLine | undefined {
  const head = /^(\d+\.\d+) \[\d+ ([^\]]+)\] /.exec(line);
  if (!head) return undefined;
  const args = [...line.slice(head[0].length).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]);
  if (args.length === 0) return undefined;
  args[0] = args[0].toLowerCase();
  return { port, time: Number(head[1]), args, fromScript: head[2] === "lua", client: head[2] };
}

/**
 * MONITOR on one or more servers (the single server, or cluster nodes), left open across a test:
 * `commands()` returns what they ran since it opened, in server-time order (one server's commands
 * keep their order), after an ECHO marker sent to each has come back through its monitor, so
 * everything sent before the call is in. The markers themselves are left out.
 */
export class MonitorWatch {
  private readonly seen: MonitoredLine[] = [];
  private readonly markers = new Map<string, () => void>();
  private readonly sockets: Socket[] = [];
  private readonly markerClients: RedisClientType[] = [];

  private constructor() {}

  static async open(servers: ReadonlyArray<{ host: string; port: number }>): Promise<MonitorWatch> {
    const watch = new MonitorWatch();
    try {
      // Markers connect before MONITOR starts, so their handshake is not seen.
      for (const { host, port } of servers) {
        const marker = createClient({ url: `redis://${host}:${port}` }) as RedisClientType;
        marker.on("error", () => undefined);
        watch.markerClients.push(marker);
        await marker.connect();
      }
      for (const { host, port } of servers) watch.sockets.push(await openMonitor(host, port, (line) => watch.record(port, line)));
    } catch (error) {
      await watch.close();
      throw error;
    }
    return watch;
  }

  private record(port: number, line: string): void {
    for (const [token, seen] of this.markers) if (line.includes(token)) return seen();
    const command = parseMonitorLine(line, port);
    if (command) this.seen.push(command);
  }

  async commands(): Promise<MonitoredLine[]> {
    await Promise.all(
      this.markerClients.map(async (marker) => {
        const token = `monitor-marker-${randomBytes(6).toString("hex")}`;
        const seen = new Promise<void>((resolve) => this.markers.set(token, resolve));
        await marker.sendCommand(["ECHO", token]);
        await seen;
        this.markers.delete(token);
      }),
    );
    return [...this.seen].sort((a, b) => a.time - b.time);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(this.markerClients.map((marker) => (marker.isOpen ? marker.quit().catch(() => undefined) : undefined)));
  }
}
