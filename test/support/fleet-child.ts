/**
 * A child program for the fleet suites (test/fleet): one RedisSMQ instance with `workers` Workers
 * on one queue, as one process of a fleet. Every handler start and Worker event goes to stdout as
 * a JSON line `{ name, worker, ..., at }` (`at`: this process' clock). A handler waits until stdin
 * says `release` when `gated`, then `handlerMs` when given, and throws a RateLimitError(`rateLimitMs`)
 * for a body starting with "429" on its first delivery; it prints `start` and `end`. When stdin closes it stops the Workers, quits and exits; a test
 * that kills it with SIGKILL leaves whatever it held to its visibility timeout.
 *
 * Usage: node fleet-child.js '{"connection":{...},"qname":"q","workers":2,...}'
 */
import { createInterface } from "readline";
import RedisSMQ = require("../../lib/index");

export interface FleetChildConfig {
  /** The RedisSMQ options (JSON: a single server's host and port, or a cluster's root nodes). */
  connection: Record<string, unknown>;
  qname: string;
  workers: number;
  concurrency?: number;
  maxIdleSleepMs?: number;
  vt?: number;
  /** Handlers wait for a `release` line on stdin (each line releases every handler waiting). */
  gated?: boolean;
  /** How long each handler takes, in ms. */
  handlerMs?: number;
  /** The ms of the RateLimitError a "429..." body's first delivery throws. */
  rateLimitMs?: number;
  retry?: { maxDeliveries?: number };
  deadLetterQueue?: string;
}

/** What a fleet child prints, one JSON line each. */
export interface FleetLine {
  name: string;
  worker: number;
  at: number;
  /** For `start` and message events: the message's id, body, receive count and first receive (server ms). */
  id?: string;
  body?: string;
  rc?: number;
  fr?: number;
  args?: unknown[];
}

const EVENTS = ["handled", "failed", "retry", "deadLettered", "rateLimited", "heldBack", "cancelled", "error", "wake"] as const;

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? "") as FleetChildConfig;
  const rsmq = new RedisSMQ(config.connection as never);
  let release: () => void = () => undefined;
  let released = new Promise<void>((resolve) => (release = resolve));
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    if (line.trim() !== "release") return;
    release();
    released = new Promise<void>((resolve) => (release = resolve));
  });
  const workers = Array.from({ length: config.workers }, (_, index) => {
    const worker = new RedisSMQ.Worker(rsmq, {
      qname: config.qname,
      concurrency: config.concurrency ?? 1,
      maxIdleSleepMs: config.maxIdleSleepMs,
      vt: config.vt,
      retry: config.retry,
      deadLetterQueue: config.deadLetterQueue,
      handler: async (message) => {
        print({ name: "start", worker: index, id: message.id, body: message.message, rc: message.rc, fr: message.fr, at: Date.now() });
        if (config.gated) await released;
        if (config.handlerMs !== undefined) await new Promise((resolve) => setTimeout(resolve, config.handlerMs));
        print({ name: "end", worker: index, id: message.id, at: Date.now() });
        if (message.message.startsWith("429") && message.rc === 1) throw new RedisSMQ.RateLimitError(config.rateLimitMs);
      },
    });
    for (const name of EVENTS) {
      (worker as unknown as NodeJS.EventEmitter).on(name, (...args: unknown[]) => {
        const [first] = args as Array<{ id?: string; rc?: number } | undefined>;
        const id = typeof first === "object" && first !== null && "id" in first ? first.id : undefined;
        print({ name, worker: index, id, args: args.map((arg) => (arg instanceof Error ? arg.message : arg)), at: Date.now() });
      });
    }
    return worker;
  });
  for (const worker of workers) worker.start();
  print({ name: "ready", worker: -1, at: Date.now() });
  await new Promise((resolve) => lines.once("close", resolve));
  await Promise.all(workers.map((worker) => worker.stop()));
  await rsmq.quitAsync();
}

function print(line: FleetLine): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
