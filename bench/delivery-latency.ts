/**
 * Delivery latency: from the producer calling sendMessage to the consumer's handler starting
 * (the body carries the producer's wall clock), for a consumer that is idle when the message is
 * sent; and lateness of delayed messages: handler start minus the moment the message became due
 * (its id's server TIME + delay). Consumers:
 *
 * - the rsmq-next Worker at its defaults, with a producer in the same process, in another process
 *   with `realtime: true`, and rsmq 0.12.4 with `realtime: true` in another process;
 * - rsmq 0.12.4 polled every 100 ms, and under rsmq-worker's loop at its defaults (see pollers.ts).
 *
 * Worker samples run one at a time (sub-millisecond figures, nothing else running); poller
 * samples, whose figures are set by their poll intervals, run as several independent
 * consumer/queue pairs side by side to keep the run short.
 */
import { fork } from "child_process";
import type { ChildProcess } from "child_process";
import { randomBytes } from "crypto";
import { join } from "path";
import RedisSMQ = require("../lib/index");
import { close, openNext, openOld } from "./clients";
import type { Lib, Message, QueueApi } from "./clients";
import { pollEvery, rsmqWorkerLoop, RSMQ_WORKER_DEFAULT_INTERVALS } from "./pollers";
import type { Poller } from "./pollers";
import type { Target } from "./redis";
import { summarize } from "./stats";
import type { Summary } from "./stats";
import { dueAtMs, wallClockMs } from "./wall-clock";

export interface DeliveryResult {
  consumer: string;
  producer: string;
  /** 0: send -> handler start; > 0: lateness after the due time of a message sent with this delay. */
  delaySeconds: number;
  /** Milliseconds. */
  latency: Summary;
  method: string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const uniform = (min: number, max: number): number => min + Math.random() * (max - min);

/** What a handler computes from a message it just got. */
function measureFrom(message: Message, delaySeconds: number): number {
  const now = wallClockMs();
  if (delaySeconds > 0) return now - dueAtMs(message.id, delaySeconds);
  return now - (JSON.parse(message.message) as { t: number }).t;
}

const stamped = (): string => JSON.stringify({ t: wallClockMs() });

/** A producer: sends a stamped message to qname with `delay` seconds. */
interface Producer {
  send(qname: string, delay: number): Promise<void>;
  close(): Promise<void>;
}

function inProcessProducer(api: QueueApi): Producer {
  return {
    send: async (qname, delay) => void (await api.sendMessageAsync({ qname, message: stamped(), delay })),
    close: () => close(api),
  };
}

/** A forked producer-process.js with realtime on. */
async function childProducer(lib: Lib, target: Target, ns: string): Promise<Producer> {
  const child: ChildProcess = fork(join(__dirname, "producer-process.js"), [
    JSON.stringify({ lib, host: target.host, port: target.port, ns }),
  ]);
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`producer process exited with ${code}`)));
    child.once("message", () => resolve());
  });
  child.removeAllListeners("exit");
  return {
    send(qname, delay) {
      return new Promise((resolve, reject) => {
        child.once("message", (reply: { error?: string }) => (reply.error ? reject(new Error(reply.error)) : resolve()));
        child.send({ qname, delay });
      });
    },
    close() {
      return new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.send("quit");
        setTimeout(() => child.kill(), 5_000).unref();
      });
    },
  };
}

export type WorkerProducer = "in-process" | "other process, realtime" | "rsmq 0.12.4, other process, realtime";

export interface WorkerDeliveryOptions {
  producer: WorkerProducer;
  samples: number;
  delaySeconds?: number;
  /** Random idle time before each send, in ms. */
  gapMs?: [number, number];
  /** Worker/queue pairs measured side by side (for delayed messages, which take seconds each). */
  pairs?: number;
}

/** One idle Worker (defaults) per pair; each sample: wait until it sleeps, then send. */
export async function workerDelivery(target: Target, options: WorkerDeliveryOptions): Promise<DeliveryResult> {
  const delaySeconds = options.delaySeconds ?? 0;
  const [gapMin, gapMax] = options.gapMs ?? [20, 60];
  const pairs = options.pairs ?? 1;
  const ns = `dl${randomBytes(3).toString("hex")}`;
  const consumer = await openNext(target, { ns });
  let producer: Producer;
  try {
    producer =
      options.producer === "in-process"
        ? inProcessProducer(await openNext(target, { ns }))
        : await childProducer(options.producer === "other process, realtime" ? "rsmq-next" : "rsmq", target, ns);
  } catch (error) {
    // Without a producer there is no run: close the consumer, or its connection keeps the process alive.
    await close(consumer);
    throw error;
  }
  const latencies: number[] = [];
  const workers: RedisSMQ.Worker[] = [];
  try {
    const lane = async (pair: number, samples: number): Promise<void> => {
      const qname = `q${pair}`;
      await consumer.createQueueAsync({ qname });
      // The worker's state, from its events: how many receives and sleeps so far, and who waits
      // for the next sleep. A sample starts only while the worker sleeps, and the next one only
      // after it slept again following the delivery (its delete and one more receive).
      let receives = 0;
      let sleeps = 0;
      let sleepWaiter: { after: number; resolve: () => void } | undefined;
      const sleptAfter = (count: number): Promise<void> =>
        sleeps > count ? Promise.resolve() : new Promise((resolve) => (sleepWaiter = { after: count, resolve }));
      let sleepsAtDelivery = 0;
      let delivered: (ms: number) => void = () => undefined;
      const worker = new RedisSMQ.Worker(consumer, {
        qname,
        handler: (message) => {
          sleepsAtDelivery = sleeps;
          delivered(measureFrom(message as Message, delaySeconds));
        },
      });
      workers.push(worker);
      let readyAfter = Infinity;
      worker.on("receive", () => {
        receives += 1;
        // The realtime subscription is confirmed when the worker receives a second time (it wakes
        // itself then; nothing else wakes it before the first sample).
        if (receives === 2) readyAfter = sleeps;
      });
      worker.on("sleep", () => {
        sleeps += 1;
        if (sleepWaiter && sleeps > sleepWaiter.after) sleepWaiter.resolve();
      });
      worker.start();
      while (readyAfter === Infinity) await sleptAfter(sleeps);
      await sleptAfter(readyAfter);
      for (let i = 0; i < samples; i += 1) {
        const got = new Promise<number>((resolve) => (delivered = resolve));
        await sleep(uniform(gapMin, gapMax));
        await producer.send(qname, delaySeconds);
        latencies.push(await got);
        await sleptAfter(sleepsAtDelivery);
      }
    };
    const perPair = Math.ceil(options.samples / pairs);
    await Promise.all(Array.from({ length: pairs }, (_, pair) => lane(pair, perPair)));
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await producer.close();
    await close(consumer);
  }
  return {
    consumer: "rsmq-next Worker, defaults",
    producer:
      options.producer === "in-process"
        ? "rsmq-next, same process"
        : options.producer === "other process, realtime"
          ? "rsmq-next, other process, realtime"
          : options.producer,
    delaySeconds,
    latency: summarize(latencies),
    method:
      `${latencies.length} samples, ${pairs === 1 ? "one at a time" : `${pairs} worker/queue pairs side by side`}; ` +
      `each sent ${gapMin}-${gapMax} ms (random) after the Worker went to sleep`,
  };
}

export type PollerKind = "poll-100ms" | "rsmq-worker";

export interface PollerDeliveryOptions {
  kind: PollerKind;
  pairs: number;
  samplesPerPair: number;
  delaySeconds?: number;
  /** rsmq-worker intervals, seconds (tests shorten them). @default [0, 1, 5, 10] */
  intervals?: number[];
  /** The fixed poll interval. @default 100 */
  pollMs?: number;
}

/**
 * rsmq 0.12.4 consumers with an rsmq 0.12.4 producer in the same process (for a poller it makes
 * no difference who sends). poll-100ms: one poller per pair, a message sent at a random point of
 * its cycle. rsmq-worker: per sample, a loop started in its long-idle state (a receive, then the
 * last interval between receives) and a message sent at a random point of that interval.
 */
export async function pollerDelivery(target: Target, options: PollerDeliveryOptions): Promise<DeliveryResult> {
  const delaySeconds = options.delaySeconds ?? 0;
  const intervals = options.intervals ?? RSMQ_WORKER_DEFAULT_INTERVALS;
  const pollMs = options.pollMs ?? 100;
  const cycleMs = options.kind === "poll-100ms" ? pollMs : intervals[intervals.length - 1] * 1000;
  const ns = `dp${randomBytes(3).toString("hex")}`;
  const latencies: number[] = [];
  const lane = async (pair: number): Promise<void> => {
    const qname = `q${pair}`;
    const consumer = await openOld(target, { ns });
    const producer = await openOld(target, { ns });
    let poller: Poller | undefined;
    try {
      await consumer.createQueueAsync({ qname });
      let delivered: (ms: number) => void = () => undefined;
      const handler = (message: Message): void => delivered(measureFrom(message, delaySeconds));
      if (options.kind === "poll-100ms") poller = pollEvery(consumer, qname, pollMs, handler);
      for (let i = 0; i < options.samplesPerPair; i += 1) {
        const got = new Promise<number>((resolve) => (delivered = resolve));
        if (options.kind === "rsmq-worker") {
          poller = rsmqWorkerLoop(consumer, qname, handler, { intervals, startIdle: true });
          await sleep(uniform(0, cycleMs));
        } else {
          await sleep(uniform(cycleMs, 3 * cycleMs));
        }
        await producer.sendMessageAsync({ qname, message: stamped(), delay: delaySeconds });
        latencies.push(await got);
        if (options.kind === "rsmq-worker") await poller?.stop();
      }
    } finally {
      await poller?.stop();
      await consumer.deleteQueueAsync({ qname }).catch(() => undefined);
      await close(consumer);
      await close(producer);
    }
  };
  await Promise.all(Array.from({ length: options.pairs }, (_, pair) => lane(pair)));
  const name =
    options.kind === "poll-100ms" ? `rsmq 0.12.4, polled every ${pollMs} ms` : `rsmq 0.12.4 + rsmq-worker [${intervals.join(", ")}] s`;
  return {
    consumer: name,
    producer: "rsmq 0.12.4, same process",
    delaySeconds,
    latency: summarize(latencies),
    method:
      `${latencies.length} samples from ${options.pairs} consumer/queue pairs side by side; ` +
      (options.kind === "poll-100ms"
        ? `each sent ${cycleMs}-${3 * cycleMs} ms (random) after the previous one was handled`
        : `each sent at a random point of the ${cycleMs / 1000} s idle interval`),
  };
}
