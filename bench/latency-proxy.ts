/**
 * A small TCP proxy between a client and Redis that holds every chunk for a fixed delay in each
 * direction (so a round trip costs at least 2 x delay, as on a network), and counts round trips: a round
 * trip starts whenever the client sends after the server last spoke (or for the first time).
 * With delay 0 it only counts. Order is kept: chunks in one direction leave in arrival order.
 */
import { connect, createServer } from "net";
import type { Server, Socket } from "net";
import type { Endpoint } from "./clients";

export class LatencyProxy {
  /** Round trips since start (or the last resetCount), over all connections. */
  roundTrips = 0;
  /** The proxy's own addresses towards Redis (`ip:port`), as Redis' MONITOR names its clients. */
  readonly upstreamAddresses = new Set<string>();
  private readonly sockets = new Set<Socket>();
  /** Actions waiting for their time, earliest first. */
  private readonly line: Array<{ due: number; action: () => void }> = [];
  private server: Server | undefined;

  private constructor(
    private readonly upstream: Endpoint,
    private readonly delayMs: number,
  ) {}

  /** Listens on a free local port. */
  static async start(upstream: Endpoint, delayMs: number): Promise<LatencyProxy> {
    const proxy = new LatencyProxy(upstream, delayMs);
    await proxy.listen();
    return proxy;
  }

  get endpoint(): Endpoint {
    const address = this.server?.address();
    if (!address || typeof address !== "object") throw new Error("proxy not listening");
    return { host: "127.0.0.1", port: address.port };
  }

  resetCount(): void {
    this.roundTrips = 0;
  }

  private listen(): Promise<void> {
    const server = createServer((client) => this.pair(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
  }

  private pair(client: Socket): void {
    const server = connect(this.upstream.port, this.upstream.host, () => {
      this.upstreamAddresses.add(`${server.localAddress}:${server.localPort}`);
    });
    client.setNoDelay(true);
    server.setNoDelay(true);
    this.sockets.add(client).add(server);
    let serverSpoke = true;
    client.on("data", (chunk: Buffer) => {
      if (serverSpoke) this.roundTrips += 1;
      serverSpoke = false;
      this.forward(chunk, server);
    });
    server.on("data", (chunk: Buffer) => {
      serverSpoke = true;
      this.forward(chunk, client);
    });
    // A side that closes closes the other one after the data already on its way (same delay,
    // so it stays behind it): a QUIT's reply still arrives before the close.
    const closeLater = (other: Socket) => (): void => {
      this.later(() => {
        other.end();
        this.sockets.delete(client);
        this.sockets.delete(server);
      });
    };
    client.on("close", closeLater(server)).on("error", () => client.destroy());
    server.on("close", closeLater(client)).on("error", () => server.destroy());
  }

  /** Runs `action` `delayMs` from now (at once for 0), after every action scheduled before it. */
  private later(action: () => void): void {
    if (this.delayMs <= 0) return action();
    this.line.push({ due: performance.now() + this.delayMs, action });
    if (this.line.length === 1) this.pump();
  }

  /**
   * Node's timers may fire up to a millisecond early (they count from the event loop's cached
   * clock), so the precise clock is checked again: a coarse timer for most of the wait, then
   * setImmediate for the last fraction of a millisecond. One line for both directions keeps
   * every chunk in order (all wait the same delay).
   */
  private pump = (): void => {
    const now = performance.now();
    while (this.line.length > 0 && this.line[0].due <= now) this.line.shift()!.action();
    if (this.line.length === 0) return;
    const remaining = this.line[0].due - now;
    if (remaining > 1.5) setTimeout(this.pump, Math.floor(remaining - 1));
    else setImmediate(this.pump);
  };

  private forward(chunk: Buffer, to: Socket): void {
    this.later(() => {
      if (!to.destroyed) to.write(chunk);
    });
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    const server = this.server;
    this.server = undefined;
    return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}
