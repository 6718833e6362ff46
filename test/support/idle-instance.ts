/**
 * A child program (see idle-count.ts): one RedisSMQ instance at its defaults with `workers` idle
 * Workers at their defaults, one queue each, on the server named in its argument. Every Worker
 * event goes to stdout as a JSON line `{ worker, name, args, at }`; when stdin closes it stops the
 * Workers, quits and exits. It is a process of its own so that nothing else of a test run (other
 * suites' wakes, timers, a busy event loop) shares its connections or its counts.
 *
 * Usage: node idle-instance.js '{"host":"127.0.0.1","port":6379,"ns":"idle","workers":1,"client":"node-redis"}'
 */
import Redis from "ioredis";
import RedisSMQ = require("../../lib/index");

export interface IdleInstanceConfig {
  host: string;
  port: number;
  ns: string;
  workers: number;
  /** What the instance talks through: node-redis connections it opens, or an ioredis client passed in. */
  client: "node-redis" | "ioredis";
  /** Defines 3 schedules on each queue before the Workers start (a daily cron, an hourly `every`, a weekly cron), none due for an hour. */
  schedules?: boolean;
}

const WORKER_EVENTS = ["receive", "look", "sleep", "wake", "error", "stopped"] as const;

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? "") as IdleInstanceConfig;
  const { host, port, ns } = config;
  const ioredis = config.client === "ioredis" ? new Redis({ host, port }) : undefined;
  const rsmq = new RedisSMQ(ioredis ? { client: ioredis, ns } : { host, port, ns });
  rsmq.on("error", (error) => print({ worker: -1, name: "error", args: [error.message], at: Date.now() }));
  const workers: InstanceType<typeof RedisSMQ.Worker>[] = [];
  for (let index = 0; index < config.workers; index++) {
    const qname = `q${index}`;
    await rsmq.createQueueAsync({ qname });
    if (config.schedules) {
      await rsmq.upsertScheduleAsync({ qname, name: "daily", cron: "0 3 * * *", tz: "Europe/Berlin", message: "daily" });
      await rsmq.upsertScheduleAsync({ qname, name: "hourly", every: 3_600_000, startAt: Date.now() + 3_600_000, message: "hourly" });
      await rsmq.upsertScheduleAsync({ qname, name: "weekly", cron: "30 2 * * 1", message: "weekly" });
    }
    const worker = new RedisSMQ.Worker(rsmq, { qname, handler: () => undefined });
    for (const name of WORKER_EVENTS) {
      (worker as unknown as NodeJS.EventEmitter).on(name, (...args: unknown[]) =>
        print({ worker: index, name, args: args.map((arg) => (arg instanceof Error ? arg.message : arg)), at: Date.now() }),
      );
    }
    workers.push(worker);
  }
  for (const worker of workers) worker.start();
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once("close", resolve).once("end", resolve));
  await Promise.all(workers.map((worker) => worker.stop()));
  await rsmq.quitAsync();
  ioredis?.disconnect();
}

function print(event: { worker: number; name: string; args: unknown[]; at: number }): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
