/**
 * BullMQ, the library most users would pick instead, on the same server: an idle Worker at its
 * defaults (for the idle table) and add / process throughput (for the throughput table). Jobs are
 * added with `removeOnComplete: true`, so a processed job is deleted, as an rsmq message is.
 * BullMQ 6 talks to Redis through ioredis when given connection options, as 5 did (its optional
 * node-redis backend is used only when handed a node-redis client, which the bench never does).
 */
import { randomBytes } from "crypto";
import { Queue, Worker } from "bullmq";
import type { ConnectionOptions } from "bullmq";
import type { IdleSubject } from "./idle-cost";
import type { Target } from "./redis";

/** The version installed, read at run time: every label and record says the BullMQ the run used. */
export const BULLMQ_VERSION = (require("bullmq/package.json") as { version: string }).version;

/** The library column of BullMQ's throughput rows: "BullMQ 6.7.6". */
export const BULLMQ_LABEL = `BullMQ ${BULLMQ_VERSION}`;

function connection(target: Target): ConnectionOptions {
  return { host: target.host, port: target.port };
}

export const bullmqIdleSubject: IdleSubject = {
  name: `${BULLMQ_LABEL} Worker, defaults`,
  method: "new Worker(name, processor, { connection }) with its defaults (drainDelay 5 s, stalledInterval 30 s)",
  async start(target, ns) {
    const worker = new Worker(`idle`, async () => undefined, { connection: connection(target), prefix: ns });
    worker.on("error", () => undefined);
    await worker.waitUntilReady();
    return { stop: () => worker.close() };
  },
};

const JOB = { removeOnComplete: true, removeOnFail: true };

/** A queue of its own, removed again by cleanup(). */
export async function bullmqQueue(target: Target): Promise<{ queue: Queue; prefix: string; cleanup(): Promise<void> }> {
  const prefix = `bull${randomBytes(3).toString("hex")}`;
  const queue = new Queue("bench", { connection: connection(target), prefix });
  await queue.waitUntilReady();
  return {
    queue,
    prefix,
    async cleanup() {
      await queue.obliterate({ force: true });
      await queue.close();
    },
  };
}

/** Adds `total` jobs with `concurrency` adds in flight. */
export async function bullmqAdd(queue: Queue, total: number, concurrency: number, data: string): Promise<void> {
  let claimed = 0;
  const lane = async (): Promise<void> => {
    while (claimed < total) {
      claimed += 1;
      await queue.add("job", { data }, JOB);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

/** Fills the queue with `total` jobs, in bulk (not timed). */
export async function bullmqFill(queue: Queue, total: number, data: string): Promise<void> {
  for (let done = 0; done < total; done += 500) {
    const count = Math.min(500, total - done);
    await queue.addBulk(Array.from({ length: count }, () => ({ name: "job", data: { data }, opts: JOB })));
  }
}

/**
 * A Worker with `concurrency` on a filled queue, connected but not yet running: `run()` starts it
 * and resolves when `total` jobs completed, `close()` closes it.
 */
export async function bullmqProcessor(
  target: Target,
  prefix: string,
  total: number,
  concurrency: number,
): Promise<{ run(): Promise<void>; close(): Promise<void> }> {
  let completed = 0;
  let finished: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const worker = new Worker("bench", async () => undefined, {
    connection: connection(target),
    prefix,
    concurrency,
    autorun: false,
  });
  worker.on("error", () => undefined);
  worker.on("completed", () => {
    completed += 1;
    if (completed === total) finished();
  });
  await worker.waitUntilReady();
  return {
    async run() {
      worker.run().catch(() => undefined);
      await done;
    },
    close: () => worker.close(),
  };
}

/** The connections BullMQ opens, counted by the server. */
export interface BullmqConnections {
  /** A Queue's, once ready. */
  queue: number;
  /** A Worker's, once ready (before it runs): its command connection and the one for its blocking fetch. */
  worker: number;
}

/**
 * Counts them as the server sees them: the growth of INFO's total_connections_received (connections
 * accepted, which a connection closing elsewhere at the same moment cannot lower) while a Queue, then
 * a Worker, gets ready. `probe` is a connection already open to the same server.
 */
export async function bullmqConnections(target: Target, probe: { info(section: string): Promise<string> }): Promise<BullmqConnections> {
  const accepted = async (): Promise<number> => Number(/total_connections_received:(\d+)/.exec(await probe.info("stats"))?.[1]);
  const start = await accepted();
  const { prefix, cleanup } = await bullmqQueue(target);
  const afterQueue = await accepted();
  const processor = await bullmqProcessor(target, prefix, 0, 1);
  const afterWorker = await accepted();
  await processor.close();
  await cleanup();
  return { queue: afterQueue - start, worker: afterWorker - afterQueue };
}
