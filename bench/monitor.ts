/**
 * A raw MONITOR connection (node-redis v4 has none): every command the server runs, with where it
 * came from, a client address or `lua` for a call made inside a script. Exact, not sampled.
 */
import type { Socket } from "net";
import { openMonitor } from "../test/support/monitor-socket";
import type { Target } from "./redis";

export interface MonitoredCommand {
  /** Lower-case command name. */
  name: string;
  /** `lua` for a call inside a script, else the client's `ip:port`. */
  origin: string;
}

export class Monitor {
  readonly commands: MonitoredCommand[] = [];
  private constructor(private readonly socket: Socket) {}

  /** Opens the connection; resolves once the server acknowledged MONITOR. */
  static async open(target: Target): Promise<Monitor> {
    // eslint-disable-next-line prefer-const -- the callback reads it before it is assigned (a `const` would throw there)
    let monitor: Monitor | undefined;
    const early: string[] = [];
    const socket = await openMonitor(target.host, target.port, (line) => (monitor ? monitor.record(line) : early.push(line)));
    monitor = new Monitor(socket);
    for (const line of early) monitor.record(line);
    return monitor;
  }

  private marker: { text: string; seen: () => void } | undefined;

  private record(line: string): void {
    if (this.marker && line.includes(this.marker.text)) return this.marker.seen();
    const match = /^\d+\.\d+ \[\d+ ([^\]]+)\] "([^"]+)"/.exec(line);
    if (match) this.commands.push({ name: match[2].toLowerCase(), origin: match[1] });
  }

  /**
   * Resolves once every command the server ran before this call is recorded: `echo` sends a
   * marker through any other connection, and MONITOR reports commands in execution order.
   */
  async flush(echo: (marker: string) => Promise<unknown>): Promise<void> {
    const text = `bench-marker-${Math.random().toString(36).slice(2)}`;
    const seen = new Promise<void>((resolve) => (this.marker = { text, seen: resolve }));
    await echo(text);
    await seen;
    this.marker = undefined;
  }

  /** Clears what was recorded so far (the window starts now). */
  reset(): void {
    this.commands.length = 0;
  }

  close(): void {
    this.socket.destroy();
  }
}
