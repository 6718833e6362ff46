/**
 * A TCP proxy between clients and Redis that can make its open connections silent: after
 * `silence()` nothing more is forwarded on them, in either direction, and they are not closed,
 * as when a NAT or load balancer forgets a flow or a cable is pulled (a half-open connection).
 * Connections opened after that are forwarded as usual, as a new flow through the same network.
 */
import { connect, createServer } from "net";
import type { Server, Socket } from "net";

export class SilentProxy {
  private readonly pairs = new Set<{ client: Socket; server: Socket; silent: boolean; deaf: boolean }>();

  private constructor(private readonly server: Server) {}

  /** Listens on a free port of 127.0.0.1, forwarding to `upstream`. */
  static async start(upstream: { host: string; port: number }): Promise<SilentProxy> {
    const proxy = new SilentProxy(createServer((client) => proxy.pair(client, upstream)));
    await new Promise<void>((resolve, reject) => {
      proxy.server.once("error", reject);
      proxy.server.listen(0, "127.0.0.1", () => resolve());
    });
    return proxy;
  }

  get port(): number {
    const address = this.server.address();
    if (!address || typeof address !== "object") throw new Error("proxy not listening");
    return address.port;
  }

  /** Connections open now (not yet closed by either side). */
  get openConnections(): number {
    return this.pairs.size;
  }

  /** Connections open now that are silent. */
  get silentConnections(): number {
    return [...this.pairs].filter((pair) => pair.silent).length;
  }

  /** Stops forwarding on every connection open now, leaving them open; new ones still work. */
  silence(): void {
    for (const pair of this.pairs) pair.silent = true;
  }

  /** Stops forwarding on the connection opened last (a subscriber opened after the command connections), leaving it open. */
  silenceNewest(): void {
    const newest = [...this.pairs].pop();
    if (newest) newest.silent = true;
  }

  /**
   * On every connection open now, still forwards what clients send but drops Redis' replies: a
   * command runs and its answer is lost, the ambiguous failure a retry must survive.
   */
  dropReplies(): void {
    for (const pair of this.pairs) pair.deaf = true;
  }

  /** Closes every connection and stops listening. */
  async close(): Promise<void> {
    for (const { client, server } of this.pairs) {
      client.destroy();
      server.destroy();
    }
    this.pairs.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private pair(client: Socket, upstream: { host: string; port: number }): void {
    const server = connect(upstream.port, upstream.host);
    const pair = { client, server, silent: false, deaf: false };
    this.pairs.add(pair);
    client.on("data", (chunk: Buffer) => {
      if (!pair.silent) server.write(chunk);
    });
    server.on("data", (chunk: Buffer) => {
      if (!pair.silent && !pair.deaf) client.write(chunk);
    });
    // A silent flow tells neither side that the other one closed: that is the point.
    const closed = (other: Socket) => (): void => {
      if (!pair.silent) other.destroy();
      else if (client.destroyed && server.destroyed) this.pairs.delete(pair);
      if (!pair.silent) this.pairs.delete(pair);
    };
    client.on("close", closed(server)).on("error", () => client.destroy());
    server.on("close", closed(client)).on("error", () => server.destroy());
  }
}
