/**
 * The process whose memory bench/memory.ts measures, started by fork() with --expose-gc, so the
 * heap and RSS are its own and not the rest of the bench's. It holds a Worker (concurrency 50,
 * no-op handler, the library's defaults otherwise) and the producer that keeps its queue topped
 * up: at most `ahead` messages sent and not yet handled, so Redis holds a few thousand messages
 * at any time, never the whole run. The producer is a second RedisSMQ instance in the same process,
 * so its sends wake the Worker if it ever finds the queue empty (as they would in an application).
 * Memory is sampled after a forced GC at start and every `sampleEvery` messages handled.
 */
import { BODY, openNext } from "./clients";
import RedisSMQ = require("../lib/index");

export interface MemoryWorkerSetup {
  host: string;
  port: number;
  ns: string;
  qname: string;
  messages: number;
  concurrency: number;
  sampleEvery: number;
  ahead: number;
  /** The producer gives up (and the run fails) after this long without a message handled. */
  stallMs: number;
}

export interface MemorySample {
  /** Messages handled when the sample was taken. */
  handled: number;
  /** process.memoryUsage() right after a forced full GC (when the process runs with --expose-gc). */
  heapUsed: number;
  rss: number;
}

export type MemoryWorkerMessage =
  { type: "sample"; sample: MemorySample } | { type: "done"; elapsedMs: number; gcForced: boolean } | { type: "failed"; error: string };

const gc = (globalThis as { gc?: () => void }).gc;

function sample(handled: number): MemorySample {
  gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  return { handled, heapUsed, rss };
}

function tell(message: MemoryWorkerMessage): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const setup = JSON.parse(process.argv[2]) as MemoryWorkerSetup;
  const consumer = await openNext(setup, { ns: setup.ns });
  const producer = await openNext(setup, { ns: setup.ns });
  await producer.createQueueAsync({ qname: setup.qname });

  let handled = 0;
  let lastHandledAt = performance.now();
  const waiting = new Set<() => void>();
  const allHandled = new Promise<void>((resolve) => {
    const worker = new RedisSMQ.Worker(consumer, { qname: setup.qname, concurrency: setup.concurrency, handler: () => undefined });
    worker.on("handled", () => {
      handled += 1;
      lastHandledAt = performance.now();
      for (const wake of waiting) wake();
      waiting.clear();
      if (handled % setup.sampleEvery === 0 || handled === setup.messages) tell({ type: "sample", sample: sample(handled) });
      if (handled === setup.messages) void worker.stop().then(resolve);
    });
    tell({ type: "sample", sample: sample(0) });
    worker.start();
  });
  // Every wait below is bounded by this: no message handled for stallMs fails the run.
  let watchdog: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    watchdog = setInterval(() => {
      if (performance.now() - lastHandledAt > setup.stallMs)
        reject(new Error(`memory bench: the Worker handled no message for ${setup.stallMs} ms (${handled} of ${setup.messages} handled)`));
    }, 500);
  });

  const started = performance.now();
  let sent = 0;
  const produce = Promise.all(
    Array.from({ length: setup.concurrency }, async () => {
      while (sent < setup.messages) {
        if (sent - handled >= setup.ahead) {
          await new Promise<void>((resolve) => waiting.add(resolve));
          continue;
        }
        sent += 1;
        await producer.sendMessageAsync({ qname: setup.qname, message: BODY });
      }
    }),
  );
  try {
    await Promise.race([Promise.all([produce, allHandled]), stalled]);
  } finally {
    clearInterval(watchdog);
  }
  const elapsedMs = performance.now() - started;
  await producer.deleteQueueAsync({ qname: setup.qname });
  await Promise.all([producer.quitAsync(), consumer.quitAsync()]);
  tell({ type: "done", elapsedMs, gcForced: gc !== undefined });
}

main().then(
  () => process.disconnect(),
  (error: Error) => {
    tell({ type: "failed", error: error.stack ?? error.message });
    // The Worker and connections may still be open: nothing else would end the process.
    setImmediate(() => process.exit(1));
  },
);
