/**
 * Runs every part of the bench in one process, against servers it is given, and returns the
 * results (nothing printed but progress, nothing written). Order: wire cost (exact), idle cost
 * with the poller delivery figures (both are long waits on timers, run side by side on their own
 * servers), throughput (alone: it reads server CPU), network latency, Worker delivery latency,
 * and last a Worker's memory over many messages (alone: it keeps both cores busy).
 */
import { cpus, loadavg, platform, release, totalmem } from "os";
import { BULLMQ_VERSION, bullmqConnections, bullmqIdleSubject } from "./bullmq";
import type { BullmqConnections } from "./bullmq";
import { LIB_VERSION } from "./clients";
import type { BenchConfig } from "./config";
import { pollerDelivery, workerDelivery } from "./delivery-latency";
import type { DeliveryResult } from "./delivery-latency";
import { recordPart, PART } from "./machine-load";
import type { PartRecord } from "./machine-load";
import { measureIdle, rsmqPollSubject, rsmqWorkerSubject, workerSubject } from "./idle-cost";
import type { IdleCost, IdleSubject } from "./idle-cost";
import { measureNetworkLatency } from "./network-latency";
import type { OperationLatency } from "./network-latency";
import { measureMemory } from "./memory";
import type { MemoryResult } from "./memory";
import { ratiosOf } from "./ratios";
import { probeClient } from "./redis";
import type { Target } from "./redis";
import { median } from "./stats";
import { resolveConstructorOptions } from "../lib/options/constructor-options";
import { readReferenceRun } from "./reference-run";
import type { ReferenceRun } from "./reference-run";
import { measureThroughput, throughputCases } from "./throughput";
import type { Kind, ThroughputSample } from "./throughput";
import { measureWireCost } from "./wire-cost";
import type { WireCost } from "./wire-cost";

export interface SuiteTargets {
  /** Wire cost, throughput, network latency, Worker delivery. */
  main: Target;
  /** One per idle subject (see idleSubjects); may all be `main`. */
  idle: Target[];
  /** Poller delivery latency. */
  pollers: Target;
  /** Whether the targets are distinct servers, so idle windows and pollers may run at once. */
  separate: boolean;
}

export interface ThroughputResult {
  key: string;
  library: string;
  kind: Kind;
  how: string;
  concurrency: number;
  baseline: string;
  samples: ThroughputSample[];
  perSecond: number;
  cpuMicrosPerMessage: number;
  clientCpuMicrosPerMessage: number;
  /**
   * perSecond / the baseline's perSecond, and the same for Redis CPU (ratios of the medians); 1 for
   * the baselines. Older runs (no `parts` in their record) hold the median of the per-round ratios here: the
   * report recomputes every ratio from the medians (bench/ratios.ts) rather than read these.
   */
  throughputRatio: number;
  cpuRatio: number;
  /**
   * The floor case this one is held against, the library calls per message, and calls a second /
   * the floor's calls a second (medians; in older runs the median of per-round ratios). Absent
   * where there is no floor to hold it against (Worker, batches, BullMQ, the floors) and in runs
   * made before floors.
   */
  floor?: string;
  callsPerMessage?: number;
  floorRatio?: number;
}

/** Command connections per library instance, as the throughput, latency and delivery parts opened them. */
export interface ClientConnections {
  rsmq: number;
  "rsmq-next": number;
  /** BullMQ's Queue and Worker, counted by the server; absent in runs made before it was counted. */
  bullmq?: BullmqConnections;
}

export interface BenchResults {
  date: string;
  mode: BenchConfig["mode"];
  /** The whole run; in runs recorded before `parts`, the suite without the connections part after it. */
  durationMs: number;
  /** Each part's duration and load average at its start and end; absent in older runs. */
  parts?: PartRecord[];
  /** Absent in runs recorded before `parts`. */
  connectionsPerClient?: ClientConnections;
  machine: {
    cpuModel: string;
    cpus: number;
    memoryGiB: number;
    os: string;
    node: string;
    loadAverageAtStart: number[];
    loadAverageAtEnd: number[];
  };
  versions: Record<string, string>;
  config: BenchConfig;
  wireCost: WireCost[];
  idle: IdleCost[];
  throughput: ThroughputResult[];
  network: { delayMs: number; iterations: number; operations: OperationLatency[] };
  delivery: DeliveryResult[];
  /** Absent in runs made before it was measured. */
  memory?: MemoryResult;
  /**
   * The figures of the run the goals of issue 37 are held against (bench/reference-run.ts), read when
   * this run was made; absent in runs made before those goals, and when that file is missing.
   */
  reference?: ReferenceRun;
}

/** The idle subjects, in table order. */
export function idleSubjects(config: BenchConfig): IdleSubject[] {
  const subjects = [rsmqPollSubject(100), rsmqWorkerSubject(config.delivery.rsmqWorkerIntervals)];
  if (config.idle.workerAtDefaults) subjects.push(workerSubject(1));
  subjects.push(workerSubject(config.idle.workerScale), bullmqIdleSubject);
  return subjects;
}

/** What rsmq-next opens when constructed as the bench's cases construct it (bench/clients.ts: no `connections`). */
function defaultConnections(target: Target): number {
  return resolveConstructorOptions({ host: target.host, port: target.port }).connection.connections;
}

async function countBullmqConnections(target: Target): Promise<BullmqConnections> {
  const probe = await probeClient(target);
  try {
    return await bullmqConnections(target, probe);
  } finally {
    await probe.quit();
  }
}

async function serverVersion(target: Target): Promise<string> {
  const probe = await probeClient(target);
  try {
    return /redis_version:(\S+)/.exec(await probe.info("server"))?.[1] ?? "unknown";
  } finally {
    await probe.quit();
  }
}

async function idleAndPollers(
  config: BenchConfig,
  targets: SuiteTargets,
  log: (line: string) => void,
): Promise<[IdleCost[], DeliveryResult[]]> {
  const { delivery } = config;
  const idle = idleSubjects(config).map((subject, i) => () => measureIdle(subject, targets.idle[i] ?? targets.main, config.idle));
  const intervals = delivery.rsmqWorkerIntervals;
  const pollers = [
    () => pollerDelivery(targets.pollers, { kind: "poll-100ms", ...delivery.poll }),
    () => pollerDelivery(targets.pollers, { kind: "rsmq-worker", intervals, ...delivery.rsmqWorker }),
    () => pollerDelivery(targets.pollers, { kind: "poll-100ms", delaySeconds: delivery.delaySeconds, ...delivery.poll }),
    () => pollerDelivery(targets.pollers, { kind: "rsmq-worker", intervals, delaySeconds: delivery.delaySeconds, ...delivery.rsmqWorker }),
  ];
  if (targets.separate) {
    log(`idle cost (${idle.length} subjects, ${config.idle.windowMs / 1000} s window each, side by side) and poller delivery latency`);
    return Promise.all([Promise.all(idle.map((run) => run())), Promise.all(pollers.map((run) => run()))]);
  }
  log(`idle cost (${idle.length} subjects, ${config.idle.windowMs / 1000} s window each, one after another)`);
  const idleResults: IdleCost[] = [];
  for (const run of idle) idleResults.push(await run());
  log("poller delivery latency");
  return [idleResults, await Promise.all(pollers.map((run) => run()))];
}

async function throughput(config: BenchConfig, target: Target, log: (line: string) => void): Promise<ThroughputResult[]> {
  const cases = throughputCases([1, 50]);
  const size = (concurrency: number): number => (concurrency > 1 ? config.throughput.messagesC50 : config.throughput.messagesC1);
  const probe = await probeClient(target);
  try {
    log("throughput warm-up round");
    for (const testCase of cases) await measureThroughput(target, testCase, Math.ceil(size(testCase.concurrency) / 4), probe);
    const rounds: Map<string, ThroughputSample>[] = [];
    for (let round = 1; round <= config.throughput.repetitions; round += 1) {
      log(`throughput round ${round}/${config.throughput.repetitions}`);
      const samples = new Map<string, ThroughputSample>();
      for (const testCase of cases) samples.set(testCase.key, await measureThroughput(target, testCase, size(testCase.concurrency), probe));
      rounds.push(samples);
    }
    const rows = cases.map((testCase): ThroughputResult => {
      const samples = rounds.map((round) => round.get(testCase.key)!);
      return {
        key: testCase.key,
        library: testCase.library,
        kind: testCase.kind,
        how: testCase.how,
        concurrency: testCase.concurrency,
        baseline: testCase.baseline,
        samples,
        perSecond: median(samples.map((sample) => sample.perSecond)),
        cpuMicrosPerMessage: median(samples.map((sample) => sample.cpuMicrosPerMessage)),
        clientCpuMicrosPerMessage: median(samples.map((sample) => sample.clientCpuMicrosPerMessage)),
        throughputRatio: Number.NaN,
        cpuRatio: Number.NaN,
        ...(testCase.floor && { floor: testCase.floor.key, callsPerMessage: testCase.floor.callsPerMessage }),
      };
    });
    for (const row of rows) {
      const ratios = ratiosOf(rows, row)!;
      row.throughputRatio = ratios.throughput;
      row.cpuRatio = ratios.cpu;
      if (ratios.floor !== undefined) row.floorRatio = ratios.floor;
    }
    return rows;
  } finally {
    await probe.quit();
  }
}

async function workerDeliveries(config: BenchConfig, target: Target, log: (line: string) => void): Promise<DeliveryResult[]> {
  const { delivery } = config;
  const results: DeliveryResult[] = [];
  for (const producer of ["in-process", "other process, realtime", "rsmq 0.12.4, other process, realtime"] as const) {
    log(`Worker delivery latency, producer ${producer}`);
    results.push(await workerDelivery(target, { producer, samples: delivery.workerSamples }));
  }
  log("Worker lateness of delayed messages");
  results.push(
    await workerDelivery(target, {
      producer: "in-process",
      samples: delivery.workerDelayedSamples,
      pairs: delivery.workerDelayedPairs,
      delaySeconds: delivery.delaySeconds,
    }),
  );
  return results;
}

export async function runSuite(
  config: BenchConfig,
  targets: SuiteTargets,
  log: (line: string) => void = () => undefined,
): Promise<BenchResults> {
  const started = Date.now();
  const loadAverageAtStart = loadavg();
  const reference = readReferenceRun();
  const parts: PartRecord[] = [];
  log("wire cost per call");
  const wireCost = await recordPart(parts, PART.wireCost, () => measureWireCost(targets.main));
  const [idle, pollerResults] = await recordPart(parts, PART.idle, () => idleAndPollers(config, targets, log));
  const throughputResults = await recordPart(parts, PART.throughput, () => throughput(config, targets.main, log));
  const bullmq = await countBullmqConnections(targets.main);
  log(`network latency (${config.network.delayMs} ms each way)`);
  const operations = await recordPart(parts, PART.network, () =>
    measureNetworkLatency(targets.main, config.network.delayMs, config.network.iterations),
  );
  const workerResults = await recordPart(parts, PART.workerDelivery, () => workerDeliveries(config, targets.main, log));
  log(`Worker memory over ${config.memory.messages.toLocaleString("en-US")} messages`);
  const memory = await recordPart(parts, PART.memory, () => measureMemory(targets.main, config.memory));
  const cpu = cpus();
  return {
    date: new Date(started).toISOString(),
    mode: config.mode,
    durationMs: Date.now() - started,
    parts,
    connectionsPerClient: { rsmq: 1, "rsmq-next": defaultConnections(targets.main), bullmq },
    machine: {
      cpuModel: cpu[0]?.model ?? "unknown",
      cpus: cpu.length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      os: `${platform()} ${release()}`,
      node: process.version,
      loadAverageAtStart,
      loadAverageAtEnd: loadavg(),
    },
    versions: {
      "rsmq-next": LIB_VERSION["rsmq-next"],
      rsmq: LIB_VERSION.rsmq,
      bullmq: BULLMQ_VERSION,
      redis: (require("redis/package.json") as { version: string }).version,
      "redis (rsmq's node_redis)": (require("rsmq/node_modules/redis/package.json") as { version: string }).version,
      ioredis: (require("ioredis/package.json") as { version: string }).version,
      "redis-server": await serverVersion(targets.main),
    },
    config,
    wireCost,
    idle,
    throughput: throughputResults,
    network: { delayMs: config.network.delayMs, iterations: config.network.iterations, operations },
    delivery: [...workerResults, ...pollerResults],
    memory,
    ...(reference && { reference }),
  };
}
