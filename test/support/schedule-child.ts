/**
 * A child program for the schedule suites (test/schedules): one RedisSMQ instance that fires
 * schedules, as one process of a fleet: a Scheduler of `schedulerQnames`, and a Worker (schedules
 * on) per queue of `workerQnames`, whose handler holds every message it takes (so every message
 * stays in the queue for the test to read). It first upserts `upserts`, on a `go` line on stdin when
 * `upsertOnGo`. It prints JSON lines: `ready`, `upserted` (with the result), `fired` (the
 * Scheduler's), `error`. When stdin closes it stops everything, quits and exits.
 *
 * Usage: node schedule-child.js '{"connection":{...},"schedulerQnames":["q"]}'
 */
import { createInterface } from "readline";
import RedisSMQ = require("../../lib/index");

export interface ScheduleChildConfig {
  /** The RedisSMQ options (JSON). */
  connection: Record<string, unknown>;
  /** The queues a Scheduler of this process fires. */
  schedulerQnames?: string[];
  /** The Scheduler's cap. */
  capMs?: number;
  /** The queues a Worker of this process consumes and fires, one Worker each. */
  workerQnames?: string[];
  /** Upserted before the firing starts. */
  upserts?: RedisSMQ.UpsertScheduleOptions[];
  /** Upsert on a `go` line on stdin (so several processes upsert at once), not at start. */
  upsertOnGo?: boolean;
}

/** What a schedule child prints, one JSON line each. */
export interface ScheduleChildLine {
  name: "ready" | "upserted" | "fired" | "skipped" | "error" | "message";
  at: number;
  qname?: string;
  schedule?: string;
  slot?: number;
  id?: string;
  result?: number;
  message?: string;
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? "") as ScheduleChildConfig;
  const rsmq = new RedisSMQ(config.connection as never);
  rsmq.on("error", (error) => print({ name: "error", at: Date.now(), message: `instance: ${error.message}` }));
  const lines = createInterface({ input: process.stdin });
  const go = new Promise<void>((resolve) => lines.on("line", (line) => line.trim() === "go" && resolve()));
  const closed = new Promise((resolve) => lines.once("close", resolve));
  if (config.upsertOnGo) {
    print({ name: "ready", at: Date.now() });
    await go;
  }
  for (const upsert of config.upserts ?? []) {
    const result = await rsmq.upsertScheduleAsync(upsert);
    print({ name: "upserted", at: Date.now(), qname: upsert.qname, schedule: upsert.name, result });
  }
  const scheduler = config.schedulerQnames && new RedisSMQ.Scheduler(rsmq, { qnames: config.schedulerQnames, capMs: config.capMs });
  scheduler?.on("fired", ({ qname, name, slot, id }) => print({ name: "fired", at: Date.now(), qname, schedule: name, slot, id }));
  scheduler?.on("error", (error) => print({ name: "error", at: Date.now(), message: error.message }));
  const workers = (config.workerQnames ?? []).map((qname) => {
    const worker = new RedisSMQ.Worker(rsmq, {
      qname,
      concurrency: 1000,
      vt: 3600,
      // Its handlers never end: the stop waits this long for them, and for its own calls in flight.
      stopTimeoutMs: 1000,
      handler: (message) => {
        print({ name: "message", at: Date.now(), qname, id: message.id, schedule: message.schedule?.name, slot: message.schedule?.slot });
        // Never settles: the message stays in the queue (in flight) for the test to read, also after the stop.
        return new Promise(() => undefined);
      },
    });
    worker.on("error", (error) => print({ name: "error", at: Date.now(), message: `worker: ${error.stack ?? error.message}` }));
    return worker;
  });
  scheduler?.start();
  for (const worker of workers) worker.start();
  if (!config.upsertOnGo) print({ name: "ready", at: Date.now() });
  await closed;
  await Promise.all([scheduler?.stop(), ...workers.map((worker) => worker.stop())]);
  await rsmq.quitAsync();
}

function print(line: ScheduleChildLine): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
