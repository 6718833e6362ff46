/**
 * Memory of a Worker over many messages: a forked process (bench/memory-worker.ts, run with
 * --expose-gc) holds a Worker at concurrency 50 with a no-op handler and a producer that keeps its
 * queue a few thousand messages ahead; heapUsed and RSS are sampled after a forced GC at start and
 * every `sampleEvery` messages. Reported: start, peak and end of each, and the growth per message,
 * the least-squares slope over the samples after the first `warmupFraction` of the run (so
 * start-up, JIT and pool growth are left out).
 */
import { fork } from "child_process";
import { randomBytes } from "crypto";
import { join } from "path";
import type { MemorySample, MemoryWorkerMessage, MemoryWorkerSetup } from "./memory-worker";
import type { Target } from "./redis";
import { slope } from "./stats";

export interface MemoryOptions {
  messages: number;
  sampleEvery: number;
  /** Most messages sent and not yet handled. */
  ahead: number;
}

export interface MemoryFigure {
  start: number;
  peak: number;
  end: number;
  /** Least-squares slope over the samples after warm-up, bytes per message handled. */
  bytesPerMessage: number;
}

export interface MemoryResult {
  messages: number;
  concurrency: number;
  ahead: number;
  elapsedMs: number;
  perSecond: number;
  /** Whether the samples follow a forced GC (the process ran with --expose-gc). */
  gcForced: boolean;
  /** Samples from this many messages handled on enter the slope. */
  slopeFrom: number;
  heapUsed: MemoryFigure;
  rss: MemoryFigure;
  samples: MemorySample[];
}

const CONCURRENCY = 50;
const WARMUP_FRACTION = 0.1;
/** No message handled for this long fails the run (the child's own bound). */
const STALL_MS = 30_000;

function figure(samples: MemorySample[], pick: (sample: MemorySample) => number, from: number): MemoryFigure {
  const values = samples.map(pick);
  return {
    start: values[0],
    peak: Math.max(...values),
    end: values[values.length - 1],
    bytesPerMessage: slope(samples.filter((sample) => sample.handled >= from).map((sample) => ({ x: sample.handled, y: pick(sample) }))),
  };
}

export async function measureMemory(target: Target, options: MemoryOptions): Promise<MemoryResult> {
  const setup: MemoryWorkerSetup = {
    host: target.host,
    port: target.port,
    ns: `mem${randomBytes(3).toString("hex")}`,
    qname: "memory",
    messages: options.messages,
    concurrency: CONCURRENCY,
    sampleEvery: options.sampleEvery,
    ahead: options.ahead,
    stallMs: STALL_MS,
  };
  const child = fork(join(__dirname, "memory-worker.js"), [JSON.stringify(setup)], {
    execArgv: [...process.execArgv.filter((flag) => flag !== "--expose-gc"), "--expose-gc"],
  });
  const samples: MemorySample[] = [];
  const done = await new Promise<{ elapsedMs: number; gcForced: boolean }>((resolve, reject) => {
    child.on("message", (message: MemoryWorkerMessage) => {
      if (message.type === "sample") samples.push(message.sample);
      else if (message.type === "done") resolve(message);
      else reject(new Error(message.error));
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`memory bench: the Worker process exited with ${code} before it was done`)));
  });
  await new Promise<void>((resolve) => (child.exitCode === null ? child.once("exit", () => resolve()) : resolve()));
  const slopeFrom = Math.floor(options.messages * WARMUP_FRACTION);
  return {
    messages: options.messages,
    concurrency: CONCURRENCY,
    ahead: options.ahead,
    elapsedMs: done.elapsedMs,
    perSecond: (options.messages * 1000) / done.elapsedMs,
    gcForced: done.gcForced,
    slopeFrom,
    heapUsed: figure(samples, (sample) => sample.heapUsed, slopeFrom),
    rss: figure(samples, (sample) => sample.rss, slopeFrom),
    samples,
  };
}
