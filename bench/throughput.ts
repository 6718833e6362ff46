/**
 * Throughput: messages per second for send, and for receive + delete, at concurrency 1 and 50,
 * for both libraries, plus rsmq-next's batch calls, its loop on the combined delete-and-receive call
 * (where the build has it), its Worker, and BullMQ; and the floor of each
 * library's client: a script that does nothing (`return 1`, no keys) by EVALSHA on the very client
 * the library talks through, the most calls a second one connection gives. Alongside each: Redis
 * CPU microseconds per message, from INFO cpu (used_cpu_sys + used_cpu_user of the server) read
 * right before and after the timed part, so it is what a Redis operator pays per message; and the
 * bench process' own CPU per message (process.cpuUsage), what the client side pays.
 * Queues are filled before the clock starts (not timed, not counted).
 */
import { randomBytes } from "crypto";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../lib/index");
import { OPERATIONS } from "../lib/methods/registry";
import { BODY, close, isMessage, openNext, open } from "./clients";
import type { QueueApi } from "./clients";
import { BULLMQ_LABEL, bullmqAdd, bullmqFill, bullmqProcessor, bullmqQueue } from "./bullmq";
import { combinedCallOf, hasCombinedCall } from "./combined-call";
import { probeClient } from "./redis";
import type { Target } from "./redis";
import { serverCpuMicros } from "./server-counters";

export type Kind = "send" | "receive+delete" | "floor";

export interface ThroughputCase {
  /** Unique key, e.g. "rsmq send C=1". */
  key: string;
  library: string;
  kind: Kind;
  /** What runs, e.g. "sendMessage, 50 in flight". */
  how: string;
  concurrency: number;
  /** The rsmq 0.12.4 case this one is compared with. */
  baseline: string;
  /**
   * The floor case this one is held against ("of floor"), with the library calls each message
   * takes (sendMessage: 1; receiveMessage + deleteMessage: 2; deleteAndReceive: 1 in a steady
   * stream, each lane's first receive left out). Absent where a call carries many
   * messages (Worker, batches) or for another library's client (BullMQ).
   */
  floor?: { key: string; callsPerMessage: number };
  /** Sets up (not timed); the returned run() is timed, cleanup() is not. */
  prepare(target: Target, total: number): Promise<Prepared>;
}

interface Prepared {
  run(): Promise<void>;
  cleanup(): Promise<void>;
}

export interface ThroughputSample {
  key: string;
  messages: number;
  elapsedMs: number;
  perSecond: number;
  cpuMicrosPerMessage: number;
  /** CPU of the bench process (the client library, its Worker or BullMQ's) per message. */
  clientCpuMicrosPerMessage: number;
}

/** Runs `lane` `concurrency` times at once; lanes share `total` claims. */
async function lanes(total: number, concurrency: number, lane: (claim: () => boolean) => Promise<void>): Promise<void> {
  let claimed = 0;
  const claim = (): boolean => (claimed < total ? ((claimed += 1), true) : false);
  await Promise.all(Array.from({ length: concurrency }, () => lane(claim)));
}

/** Fills a queue through rsmq-next (same keys for both libraries), 100 sends in flight. */
async function fill(target: Target, ns: string, qname: string, total: number): Promise<void> {
  const filler = await openNext(target, { ns });
  try {
    await lanes(total, 100, async (claim) => {
      while (claim()) await filler.sendMessageAsync({ qname, message: BODY });
    });
  } finally {
    await close(filler);
  }
}

function libraryName(lib: "rsmq" | "rsmq-next"): string {
  return lib === "rsmq" ? "rsmq 0.12.4" : "rsmq-next";
}

/** A fresh namespace with one queue, opened with `lib`; cleanup deletes the queue and quits. */
async function queueFor(
  lib: "rsmq" | "rsmq-next",
  target: Target,
): Promise<{ api: QueueApi; ns: string; qname: string; cleanup(): Promise<void> }> {
  const ns = `tp${randomBytes(3).toString("hex")}`;
  const qname = "bench";
  const api = await open(lib, target, { ns });
  await api.createQueueAsync({ qname });
  return {
    api,
    ns,
    qname,
    async cleanup() {
      await api.deleteQueueAsync({ qname });
      await close(api);
    },
  };
}

function sendCase(lib: "rsmq" | "rsmq-next", concurrency: number): ThroughputCase {
  return {
    key: `${lib} send C=${concurrency}`,
    library: libraryName(lib),
    kind: "send",
    how: `sendMessage, ${concurrency} in flight`,
    concurrency,
    baseline: `rsmq send C=${concurrency}`,
    floor: { key: floorKey(lib, concurrency), callsPerMessage: 1 },
    async prepare(target, total) {
      const { api, qname, cleanup } = await queueFor(lib, target);
      return {
        run: () =>
          lanes(total, concurrency, async (claim) => {
            while (claim()) await api.sendMessageAsync({ qname, message: BODY });
          }),
        cleanup,
      };
    },
  };
}

function receiveDeleteCase(lib: "rsmq" | "rsmq-next", concurrency: number): ThroughputCase {
  return {
    key: `${lib} receive+delete C=${concurrency}`,
    library: libraryName(lib),
    kind: "receive+delete",
    how: `receiveMessage then deleteMessage, ${concurrency} in flight`,
    concurrency,
    baseline: `rsmq receive+delete C=${concurrency}`,
    floor: { key: floorKey(lib, concurrency), callsPerMessage: 2 },
    async prepare(target, total) {
      const { api, ns, qname, cleanup } = await queueFor(lib, target);
      await fill(target, ns, qname, total);
      return {
        run: () =>
          lanes(total, concurrency, async (claim) => {
            while (claim()) {
              const message = await api.receiveMessageAsync({ qname });
              if (!isMessage(message)) throw new Error("queue ran dry before every message was received");
              await api.deleteMessageAsync({ qname, id: message.id });
            }
          }),
        cleanup,
      };
    },
  };
}

/**
 * The plain loop with the combined call, as a user of the plain API writes it: one receiveMessage
 * to start, then per message one deleteAndReceive (the delete of the message handled and the receive
 * of the next, one script call); a lane's last message is deleted alone, so exactly `total` messages
 * are received. Only for a build that has the call (bench/combined-call.ts).
 */
function combinedCase(concurrency: number): ThroughputCase {
  return {
    key: combinedKey(concurrency),
    library: "rsmq-next",
    kind: "receive+delete",
    how: `receiveMessage once, then deleteAndReceive per message, ${concurrency} in flight`,
    concurrency,
    baseline: `rsmq receive+delete C=${concurrency}`,
    floor: { key: floorKey("rsmq-next", concurrency), callsPerMessage: 1 },
    async prepare(target, total) {
      const { api, ns, qname, cleanup } = await queueFor("rsmq-next", target);
      await fill(target, ns, qname, total);
      const combined = combinedCallOf(api);
      let deleted = 0;
      return {
        async run() {
          await lanes(total, concurrency, async (claim) => {
            if (!claim()) return;
            let message = await api.receiveMessageAsync({ qname });
            for (;;) {
              if (!isMessage(message)) throw new Error("queue ran dry before every message was received");
              if (!claim()) {
                // Awaited first: `deleted += await` would read `deleted` before the call, and lanes overlap.
                const last = await api.deleteMessageAsync({ qname, id: message.id });
                deleted += last;
                return;
              }
              const reply = await combined.deleteAndReceiveAsync({ qname, id: message.id });
              if (reply.receiveError) throw reply.receiveError;
              deleted += reply.deleted;
              message = reply.message;
            }
          });
          // Checked once at the end, not per message: a delete that did not happen is a wrong figure.
          if (deleted !== total) throw new Error(`deleteAndReceive deleted ${deleted} of ${total} messages`);
        },
        cleanup,
      };
    },
  };
}

export function combinedKey(concurrency: number): string {
  return `rsmq-next deleteAndReceive C=${concurrency}`;
}

export function floorKey(lib: "rsmq" | "rsmq-next", concurrency: number): string {
  return `${lib} floor C=${concurrency}`;
}

/** The script of the floor: no key, no work, one integer back. */
const FLOOR_SCRIPT = "return 1";

/** EVALSHA through node_redis v3's callback API (rsmq 0.12.4's client). */
interface OldClient {
  script(subcommand: "load", script: string, callback: (error: Error | null, sha: string) => void): void;
  evalsha(sha: string, keys: 0, callback: (error: Error | null, reply: unknown) => void): void;
}

function oldCall<T>(start: (callback: (error: Error | null, reply: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => start((error, reply) => (error ? reject(error) : resolve(reply))));
}

/**
 * The floor: EVALSHA of `return 1` on the client the library instance itself talks through
 * (rsmq-next's `rsmq.redis`, node-redis v4; rsmq 0.12.4's `rsmq.redis`, node_redis v3), sent the
 * way the library sends its own scripts, `concurrency` in flight. Each call is one message here.
 */
function floorCase(lib: "rsmq" | "rsmq-next", concurrency: number): ThroughputCase {
  const client = lib === "rsmq" ? "node_redis 3" : "node-redis 4";
  return {
    key: floorKey(lib, concurrency),
    library: libraryName(lib),
    kind: "floor",
    how: `floor: EVALSHA of \`${FLOOR_SCRIPT}\` on its own client (${client}), ${concurrency} in flight`,
    concurrency,
    baseline: floorKey("rsmq", concurrency),
    async prepare(target, total) {
      const { api, cleanup } = await queueFor(lib, target);
      let call: () => Promise<unknown>;
      if (lib === "rsmq-next") {
        const redis = (api as unknown as RedisSMQ).redis;
        const sha = String(await redis.sendCommand(["SCRIPT", "LOAD", FLOOR_SCRIPT]));
        call = () => redis.sendCommand(["EVALSHA", sha, "0"]);
      } else {
        const redis = (api as unknown as { redis: OldClient }).redis;
        const sha = await oldCall<string>((callback) => redis.script("load", FLOOR_SCRIPT, callback));
        call = () => oldCall((callback) => redis.evalsha(sha, 0, callback));
      }
      return {
        run: () =>
          lanes(total, concurrency, async (claim) => {
            while (claim()) await call();
          }),
        cleanup,
      };
    },
  };
}

/** One loop of receiveMessages(count) + deleteMessages(ids). */
function batchCase(count: number): ThroughputCase {
  return {
    key: `rsmq-next batch ${count}`,
    library: "rsmq-next",
    kind: "receive+delete",
    how: `receiveMessages({ count: ${count} }) then deleteMessages, one loop`,
    concurrency: count,
    baseline: `rsmq receive+delete C=${count}`,
    async prepare(target, total) {
      const { api, ns, qname, cleanup } = await queueFor("rsmq-next", target);
      await fill(target, ns, qname, total);
      const rsmq = api as unknown as RedisSMQ;
      return {
        async run() {
          for (let done = 0; done < total;) {
            const { messages } = await rsmq.receiveMessagesAsync({ qname, count: Math.min(count, total - done) });
            if (messages.length === 0) throw new Error("queue ran dry before every message was received");
            await rsmq.deleteMessagesAsync({ qname, ids: messages.map((message) => message.id) });
            done += messages.length;
          }
        },
        cleanup,
      };
    },
  };
}

/** The Worker draining a filled queue with a no-op handler (it receives in batches of `concurrency`). */
function workerCase(concurrency: number): ThroughputCase {
  return {
    key: `rsmq-next Worker C=${concurrency}`,
    library: "rsmq-next",
    kind: "receive+delete",
    how: `Worker, concurrency ${concurrency} (batchSize ${concurrency}), no-op handler`,
    concurrency,
    baseline: `rsmq receive+delete C=${concurrency}`,
    async prepare(target, total) {
      const { api, ns, qname, cleanup } = await queueFor("rsmq-next", target);
      await fill(target, ns, qname, total);
      const worker = new RedisSMQ.Worker(api as unknown as RedisSMQ, { qname, concurrency, handler: () => undefined });
      return {
        async run() {
          const handled = new Promise<void>((resolve) => {
            let count = 0;
            worker.on("handled", () => {
              count += 1;
              if (count === total) resolve();
            });
          });
          worker.start();
          await handled;
        },
        async cleanup() {
          await worker.stop();
          await cleanup();
        },
      };
    },
  };
}

function bullmqAddCase(concurrency: number): ThroughputCase {
  return {
    key: `bullmq add C=${concurrency}`,
    library: BULLMQ_LABEL,
    kind: "send",
    how: `queue.add, ${concurrency} in flight`,
    concurrency,
    baseline: `rsmq send C=${concurrency}`,
    async prepare(target, total) {
      const { queue, cleanup } = await bullmqQueue(target);
      return { run: () => bullmqAdd(queue, total, concurrency, BODY), cleanup };
    },
  };
}

function bullmqProcessCase(concurrency: number): ThroughputCase {
  return {
    key: `bullmq process C=${concurrency}`,
    library: BULLMQ_LABEL,
    kind: "receive+delete",
    how: `Worker, concurrency ${concurrency}, no-op processor, removeOnComplete`,
    concurrency,
    baseline: `rsmq receive+delete C=${concurrency}`,
    async prepare(target, total) {
      const { queue, prefix, cleanup } = await bullmqQueue(target);
      await bullmqFill(queue, total, BODY);
      const processor = await bullmqProcessor(target, prefix, total, concurrency);
      return {
        run: () => processor.run(),
        async cleanup() {
          await processor.close();
          await cleanup();
        },
      };
    },
  };
}

/**
 * Every case, the floors and rsmq 0.12.4's first (they are what the others are held against); the
 * combined call's loop only where the build has the call.
 */
export function throughputCases(concurrencies: number[] = [1, 50], combined = hasCombinedCall(OPERATIONS)): ThroughputCase[] {
  const cases: ThroughputCase[] = [];
  for (const c of concurrencies) cases.push(floorCase("rsmq", c), floorCase("rsmq-next", c));
  for (const c of concurrencies) cases.push(sendCase("rsmq", c), receiveDeleteCase("rsmq", c));
  for (const c of concurrencies) cases.push(sendCase("rsmq-next", c), receiveDeleteCase("rsmq-next", c));
  if (combined) for (const c of concurrencies) cases.push(combinedCase(c));
  for (const c of concurrencies) cases.push(workerCase(c));
  cases.push(batchCase(Math.max(...concurrencies)));
  for (const c of concurrencies) cases.push(bullmqAddCase(c), bullmqProcessCase(c));
  return cases;
}

export async function measureThroughput(
  target: Target,
  testCase: ThroughputCase,
  total: number,
  probe?: RedisClientType,
): Promise<ThroughputSample> {
  const reader = probe ?? (await probeClient(target));
  try {
    const prepared = await testCase.prepare(target, total);
    try {
      const cpuBefore = await serverCpuMicros(reader);
      const clientBefore = process.cpuUsage();
      const started = performance.now();
      await prepared.run();
      const elapsedMs = performance.now() - started;
      const client = process.cpuUsage(clientBefore);
      const cpuAfter = await serverCpuMicros(reader);
      return {
        key: testCase.key,
        messages: total,
        elapsedMs,
        perSecond: (total * 1000) / elapsedMs,
        cpuMicrosPerMessage: (cpuAfter - cpuBefore) / total,
        clientCpuMicrosPerMessage: (client.user + client.system) / total,
      };
    } finally {
      await prepared.cleanup();
    }
  } finally {
    if (!probe) await reader.quit();
  }
}
