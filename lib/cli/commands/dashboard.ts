/**
 * `dashboard`: serves the operator dashboard (lib/dashboard/) over HTTP until Ctrl-C / SIGTERM,
 * read-only unless --read-write, behind basic authentication with --auth. Its address goes to
 * stdout (with --json as one event), warnings to stderr.
 */
import type { Command } from "commander";
import { createServer } from "http";
import type { Server } from "http";
import type { AddressInfo, Socket } from "net";
import { integer, positiveNumber } from "../arguments";
import { askForCredentials, authorized, credentials } from "../basic-auth";
import { run } from "../context";
import type { Context } from "../context";
import { closeQueue, openQueue } from "../connect";
import { CliError, EXIT_FAILURE, usageError } from "../errors";
import { stopOnSignals } from "../stop-signal";
import type { RedisSMQ } from "../../redis-smq";

/** The dashboard command's options, as commander parsed them. */
export interface DashboardCommandOptions {
  port: number;
  host: string;
  readWrite?: boolean;
  auth?: string;
  /** Seconds between two readings. */
  interval: number;
}

/** Adds `dashboard` to the program. */
export function register(program: Command): void {
  program
    .command("dashboard")
    .description("serve the web dashboard: every queue live, a message browser, dead letters (read-only unless --read-write)")
    .option("--port <n>", "port to listen on; 0 picks a free one", integer(0, 65535), 3000)
    .option("--host <address>", "address to bind", "127.0.0.1")
    .option("--read-write", "allow the actions (create, send, delete, redrive...)")
    .option("--auth <user:password>", "HTTP basic authentication, compared in constant time", credentials)
    .option("--interval <seconds>", "seconds between two readings while a tab is open", positiveNumber, 2)
    .action((options: DashboardCommandOptions, command: Command) => run(command, (context) => runDashboardCommand(options, context)));
}

/** Whether `host` is reachable from this machine only. */
function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The URL a browser opens for an address (IPv6 in brackets). */
function urlOf({ address, port }: AddressInfo, host: string): string {
  const shown = host === "localhost" ? host : address;
  return `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}/`;
}

/**
 * The dashboard command's action: opens the connection, listens, prints the address, serves until
 * a stop signal, then closes the streams, the server and the connection, so the process ends by itself.
 */
export async function runDashboardCommand(options: DashboardCommandOptions, context: Context): Promise<void> {
  const { server, out } = context;
  const intervalMs = Math.round(options.interval * 1000);
  if (intervalMs < 100 || intervalMs > 3_600_000) {
    throw usageError(`invalid --interval ${options.interval}`, "between 0.1 and 3600 seconds");
  }
  const stop = stopOnSignals();
  let rsmq: RedisSMQ | undefined;
  let http: Server | undefined;
  const { createDashboard } = await import("../../dashboard/index");
  let dashboard: ReturnType<typeof createDashboard> | undefined;
  try {
    rsmq = await openQueue(server, { persistent: true });
    const handler = createDashboard({ rsmq, readOnly: !options.readWrite, intervalMs });
    dashboard = handler;
    const auth = options.auth;
    http = createServer((req, res) => {
      if (auth !== undefined && !authorized(req, auth)) return askForCredentials(res);
      handler(req, res);
    });
    const sockets = trackSockets(http);
    const address = await listen(http, options.port, options.host);
    const url = urlOf(address, options.host);
    const mode = options.readWrite ? "read-write" : "read-only";
    if (out.json) out.event({ event: "listening", url, readOnly: !options.readWrite, ns: server.ns });
    else out.line(`dashboard: ${url} (${mode})`);
    if (!isLoopback(options.host) && auth === undefined) {
      out.note(
        `warning: listening on ${options.host} without --auth: anyone who reaches this port sees your queues${options.readWrite ? " and can change them" : ""}`,
      );
    }
    await new Promise<void>((resolve) => {
      if (stop.signal.aborted) return resolve();
      stop.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    handler.close();
    await closeServer(http, sockets);
    http = undefined;
  } finally {
    stop.dispose();
    dashboard?.close();
    if (http) await closeServer(http, new Set());
    if (rsmq) await closeQueue(rsmq).catch(() => undefined);
  }
}

function listen(http: Server, port: number, host: string): Promise<AddressInfo> {
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
function trackSockets(http: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  http.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  return sockets;
}

function closeServer(http: Server, sockets: Set<Socket>): Promise<void> {
  return new Promise((resolve) => {
    http.close(() => resolve());
    for (const socket of sockets) socket.destroy();
  });
}
