/**
 * The HTTP server of the commands that serve (dashboard, metrics): listening with a clear error
 * when the port is taken, the URL to print, and a stop that does not wait for idle keep-alive
 * connections.
 */
import type { Server } from "http";
import type { AddressInfo, Socket } from "net";
import { CliError, EXIT_FAILURE } from "./errors";

/** Whether `host` is reachable from this machine only. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The URL a browser opens for an address (IPv6 in brackets). */
export function urlOf({ address, port }: AddressInfo, host: string): string {
  const shown = host === "localhost" ? host : address;
  return `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}/`;
}

export function listen(http: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    http.once("error", (error: NodeJS.ErrnoException) => {
      const problem =
        error.code === "EADDRINUSE" ? "the port is in use" : error.code === "EADDRNOTAVAIL" ? "no such address here" : error.message;
      reject(new CliError(`cannot listen on ${host}:${port}: ${problem}`, EXIT_FAILURE, "pick another --port (0: a free one) or --host"));
    });
    http.listen(port, host, () => resolve(http.address() as AddressInfo));
  });
}

/** The open connections, so a stop does not wait for idle keep-alive ones. */
export function trackSockets(http: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  http.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  return sockets;
}

export function closeServer(http: Server, sockets: Set<Socket>): Promise<void> {
  return new Promise((resolve) => {
    http.close(() => resolve());
    for (const socket of sockets) socket.destroy();
  });
}
