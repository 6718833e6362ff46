/**
 * `dashboard`: serves the operator dashboard (lib/dashboard/) over HTTP until Ctrl-C / SIGTERM,
 * read-only unless --read-write, behind basic authentication with --auth. Its address goes to
 * stdout (with --json as one event), warnings to stderr.
 */
import type { Command } from "commander";
import { createServer } from "http";
import type { Server } from "http";
import { integer, positiveNumber } from "../arguments";
import { askForCredentials, authorized, credentials } from "../basic-auth";
import { run } from "../context";
import type { Context } from "../context";
import { closeQueue, openQueue } from "../connect";
import { usageError } from "../errors";
import { closeServer, isLoopback, listen, trackSockets, urlOf } from "../http-server";
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
