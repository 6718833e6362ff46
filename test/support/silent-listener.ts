/**
 * A TCP server that accepts every connection and never sends a byte, as a stuck proxy, a wrong
 * port or a server frozen in a long command looks to a client: the TCP connect succeeds, and the
 * handshake (CLIENT SETINFO, AUTH, SELECT) waits for ever.
 */
import { createServer } from "net";
import type { Server, Socket } from "net";

export class SilentListener {
  private readonly sockets = new Set<Socket>();
  /** Connections accepted so far. */
  accepted = 0;

  private constructor(private readonly server: Server) {}

  /** Listens on a free port of 127.0.0.1. */
  static async start(): Promise<SilentListener> {
    const listener: SilentListener = new SilentListener(
      createServer((socket) => {
        listener.accepted += 1;
        listener.sockets.add(socket);
        // Read (and drop) what the client sends: a socket never read would not see the client close it.
        socket.resume();
        socket.on("error", () => undefined).on("close", () => listener.sockets.delete(socket));
      }),
    );
    await new Promise<void>((resolve, reject) => {
      listener.server.once("error", reject);
      listener.server.listen(0, "127.0.0.1", () => resolve());
    });
    return listener;
  }

  get port(): number {
    const address = this.server.address();
    if (!address || typeof address !== "object") throw new Error("listener not listening");
    return address.port;
  }

  /** redis://127.0.0.1:<port> */
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Connections open now (the client has not closed them). */
  get openConnections(): number {
    return this.sockets.size;
  }

  /** Closes every connection and stops listening. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
