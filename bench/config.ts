/**
 * How big each part of the bench is. `full` is `npm run bench` (bench/README.md says how long the
 * last one took, from its record), `quick` is `npm run bench:quick` (under a minute, a smoke check whose numbers are too
 * small to quote), `tiny` is what test/bench/bench.test.ts runs so the code path cannot rot (seconds;
 * rsmq-worker's intervals shortened, which only the test does).
 */
export type Mode = "full" | "quick" | "tiny";

export interface BenchConfig {
  mode: Mode;
  idle: {
    /** The counting window; a multiple of every subject's period (0.1, 5, 10, 30 s) in the full run. */
    windowMs: number;
    warmupMs: number;
    /** The Worker is also measured with its cap divided by this, and the rate divided back. */
    workerScale: number;
    /** Also measure the Worker at its real 30 s cap (only meaningful for windows of minutes). */
    workerAtDefaults: boolean;
  };
  throughput: {
    /** Messages per measurement at concurrency 1, and at 50. */
    messagesC1: number;
    messagesC50: number;
    /** Measured rounds (every case once per round, interleaved); a smaller warm-up round runs first. */
    repetitions: number;
  };
  network: { delayMs: number; iterations: number };
  /** A Worker's memory over many messages (bench/memory.ts). */
  memory: {
    messages: number;
    /** Memory is sampled (after a forced GC) every this many messages handled. */
    sampleEvery: number;
    /** Most messages sent and not yet handled: what Redis holds at a time. */
    ahead: number;
  };
  delivery: {
    workerSamples: number;
    /** Delayed messages (1 s), spread over worker/queue pairs side by side. */
    workerDelayedSamples: number;
    workerDelayedPairs: number;
    poll: { pairs: number; samplesPerPair: number };
    rsmqWorker: { pairs: number; samplesPerPair: number };
    delaySeconds: number;
    /** rsmq-worker's intervals in seconds; only the test shortens them. */
    rsmqWorkerIntervals?: number[];
  };
  /** `--only purge` (bench/purge.ts): queue sizes purged and DELeted, and rounds of each. */
  purge: { sizes: number[]; rounds: number };
  /** `--only sendbatch` (bench/send-batch.ts): messages per subject, per sendMessages call, calls in flight, rounds. */
  sendBatch: { messages: number; batch: number; concurrency: number; rounds: number };
  /** `--only batch-bound` (bench/batch-bound.ts): rounds of every batch call at each shape. */
  batchBound: { rounds: number };
}

export const CONFIGS: Record<Mode, BenchConfig> = {
  full: {
    mode: "full",
    idle: { windowMs: 120_000, warmupMs: 2_000, workerScale: 100, workerAtDefaults: true },
    throughput: { messagesC1: 2_000, messagesC50: 10_000, repetitions: 7 },
    network: { delayMs: 1, iterations: 150 },
    memory: { messages: 1_000_000, sampleEvery: 10_000, ahead: 5_000 },
    delivery: {
      workerSamples: 200,
      workerDelayedSamples: 40,
      workerDelayedPairs: 10,
      poll: { pairs: 20, samplesPerPair: 10 },
      rsmqWorker: { pairs: 25, samplesPerPair: 4 },
      delaySeconds: 1,
    },
    purge: { sizes: [10_000, 100_000, 1_000_000], rounds: 5 },
    sendBatch: { messages: 20_000, batch: 100, concurrency: 50, rounds: 5 },
    batchBound: { rounds: 15 },
  },
  quick: {
    mode: "quick",
    idle: { windowMs: 20_000, warmupMs: 1_000, workerScale: 100, workerAtDefaults: false },
    throughput: { messagesC1: 300, messagesC50: 1_000, repetitions: 2 },
    network: { delayMs: 1, iterations: 20 },
    memory: { messages: 20_000, sampleEvery: 1_000, ahead: 2_000 },
    delivery: {
      workerSamples: 30,
      workerDelayedSamples: 6,
      workerDelayedPairs: 3,
      poll: { pairs: 4, samplesPerPair: 3 },
      rsmqWorker: { pairs: 8, samplesPerPair: 1 },
      delaySeconds: 1,
    },
    purge: { sizes: [1_000, 10_000], rounds: 1 },
    sendBatch: { messages: 5_000, batch: 100, concurrency: 50, rounds: 3 },
    batchBound: { rounds: 3 },
  },
  tiny: {
    mode: "tiny",
    idle: { windowMs: 250, warmupMs: 50, workerScale: 100, workerAtDefaults: false },
    throughput: { messagesC1: 20, messagesC50: 60, repetitions: 2 },
    network: { delayMs: 1, iterations: 2 },
    memory: { messages: 300, sampleEvery: 50, ahead: 100 },
    delivery: {
      workerSamples: 3,
      workerDelayedSamples: 2,
      workerDelayedPairs: 2,
      poll: { pairs: 2, samplesPerPair: 1 },
      rsmqWorker: { pairs: 2, samplesPerPair: 1 },
      delaySeconds: 1,
      rsmqWorkerIntervals: [0, 0.02, 0.05, 0.1],
    },
    purge: { sizes: [200], rounds: 2 },
    sendBatch: { messages: 300, batch: 100, concurrency: 50, rounds: 2 },
    batchBound: { rounds: 1 },
  },
};
