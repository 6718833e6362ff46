/**
 * `metrics`: an exporter for Prometheus. Serves the queue-state metrics of the namespace
 * (lib/telemetry/exposition/) at GET /metrics in the text format until Ctrl-C / SIGTERM. Each scrape reads
 * Redis once (one read-only script call for every queue on one server); between scrapes it sends
 * nothing. Its address goes to stdout (with --json as one event).
 */
import type { Command } from "commander";
import { createServer } from "http";
import type { IncomingMessage, Server, ServerResponse } from "http";
import { integer } from "../arguments";
import { run } from "../context";
import type { Context } from "../context";
import { closeQueue, openQueue } from "../connect";
import { closeServer, listen, trackSockets, urlOf } from "../http-server";
import { stopOnSignals } from "../stop-signal";
import type { RedisSMQ } from "../../redis-smq";
import { renderExposition } from "../../telemetry/exposition/exposition";
import { queueStateFamilies } from "../../telemetry/exposition/queue-state-families";
import { QueueStateReader } from "../../queue-state/queue-state-reader";
import { sendScrapeFailure, sendExposition } from "../../telemetry/exposition/scrape-answer";

/** The port Prometheus' registry of exporter ports gives no one else, and OpenTelemetry's Prometheus exporter uses. */
export const DEFAULT_METRICS_PORT = 9464;

/** The metrics command's options, as commander parsed them. */
export interface MetricsCommandOptions {
  port: number;
  host: string;
}

/** Adds `metrics` to the program. */
export function register(program: Command): void {
  program
    .command("metrics")
    .description("serve the queues' state for Prometheus at /metrics: read from Redis on each scrape, nothing in between")
    .option("--port <n>", "port to listen on; 0 picks a free one", integer(0, 65535), DEFAULT_METRICS_PORT)
    .option("--host <address>", "address to bind", "127.0.0.1")
    .action((options: MetricsCommandOptions, command: Command) => run(command, (context) => runMetricsCommand(options, context)));
}

function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
  res.end(`${text}\n`);
}

/** One request: GET or HEAD /metrics reads and answers; anything else is refused without a round trip. */
function serveScrape(rsmq: RedisSMQ, reader: QueueStateReader, req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? "/", "http://metrics.invalid").pathname;
  if (path !== "/metrics") return sendText(res, 404, `rsmq-next metrics: no ${path} here; the metrics are at /metrics`);
  const method = req.method ?? "GET";
  if (method !== "GET" && method !== "HEAD") {
    return sendText(res, 405, `rsmq-next metrics: /metrics takes GET or HEAD, not ${method}`, { Allow: "GET, HEAD" });
  }
  const head = method === "HEAD";
  // While the link is down a read would wait for the reconnect: the scrape is answered now instead.
  if (!rsmq.connected) {
    return sendScrapeFailure(res, "the connection to Redis is lost; rsmq-next reconnects by itself", head);
  }
  reader.read().then(
    (reading) => sendExposition(res, renderExposition(queueStateFamilies(reading)), head),
    (error: unknown) => sendScrapeFailure(res, error, head),
  );
}

/**
 * The metrics command's action: opens the connection, listens, prints the address, serves until
 * a stop signal, then closes the server and the connection, so the process ends by itself.
 */
export async function runMetricsCommand(options: MetricsCommandOptions, context: Context): Promise<void> {
  const { server, out } = context;
  const stop = stopOnSignals();
  let rsmq: RedisSMQ | undefined;
  let http: Server | undefined;
  try {
    const queue = (rsmq = await openQueue(server, { persistent: true }));
    const reader = new QueueStateReader(queue);
    http = createServer((req, res) => serveScrape(queue, reader, req, res));
    const sockets = trackSockets(http);
    const address = await listen(http, options.port, options.host);
    const url = `${urlOf(address, options.host)}metrics`;
    if (out.json) out.event({ event: "listening", url, ns: server.ns });
    else out.line(`metrics: ${url}`);
    await new Promise<void>((resolve) => {
      if (stop.signal.aborted) return resolve();
      stop.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    await closeServer(http, sockets);
    http = undefined;
  } finally {
    stop.dispose();
    if (http) await closeServer(http, new Set());
    if (rsmq) await closeQueue(rsmq).catch(() => undefined);
  }
}
