/**
 * What telemetry costs: sendMessage at 50 in flight and a Worker at concurrency 50, with telemetry
 * off (no option: today's path), with `telemetry: true` and the OpenTelemetry API installed but no
 * SDK registered (the API's no-op tracer and meter), and with the SDK recording (a tracer provider
 * with an in-memory exporter and a meter provider with a reader, passed in the option), side by
 * side in one run. Every case once per round, rounds interleaved, medians; ratios to "off" are
 * taken within each round. The SDK case counts the spans it kept, so a run that recorded nothing
 * cannot pass for a cheap one. `node build/bench/run.js --only telemetry` runs this part alone.
 */
import { randomBytes } from "crypto";
import { loadavg } from "os";
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import RedisSMQ = require("../lib/index");
import { BODY, handleAll } from "./clients";
import type { Target } from "./redis";
import { probeClient } from "./redis";
import { median } from "./stats";
import { measureThroughput } from "./throughput";
import type { ThroughputCase, ThroughputSample } from "./throughput";

const IN_FLIGHT = 50;

/** The three ways telemetry can be. */
export const TELEMETRY_MODES = ["off", "API, no SDK", "SDK recording"] as const;
export type TelemetryMode = (typeof TELEMETRY_MODES)[number];

export interface TelemetryRow {
  key: string;
  what: "send" | "Worker";
  mode: TelemetryMode;
  perSecond: number;
  /** Median over rounds of this case's msg/s over the same workload with telemetry off in that round. */
  ratioToOff: number;
  clientCpuMicrosPerMessage: number;
  cpuMicrosPerMessage: number;
}

export interface TelemetryResult {
  messages: number;
  rounds: number;
  loadBefore: number[];
  loadAfter: number[];
  rows: TelemetryRow[];
  /** Spans the SDK case's exporter received over the whole run (0 would mean it measured nothing). */
  spansRecorded: number;
}

/** The SDK the "SDK recording" case passes in its option: kept in memory, emptied after each case. */
class RecordingSdk {
  readonly spans = new InMemorySpanExporter();
  readonly tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(this.spans)] });
  private readonly reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 60_000,
  });
  readonly meterProvider = new MeterProvider({ readers: [this.reader] });
  recorded = 0;

  /** Counts what was kept and lets it go, so memory does not grow over the run. */
  drain(): void {
    this.recorded += this.spans.getFinishedSpans().length;
    this.spans.reset();
  }

  async shutdown(): Promise<void> {
    await this.tracerProvider.shutdown();
    await this.meterProvider.shutdown();
  }
}

function telemetryOption(mode: TelemetryMode, sdk: RecordingSdk): RedisSMQ.ConstructorOptions["telemetry"] {
  if (mode === "off") return undefined;
  if (mode === "API, no SDK") return true;
  return { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider };
}

async function open(target: Target, mode: TelemetryMode, sdk: RecordingSdk): Promise<{ rsmq: RedisSMQ; qname: string }> {
  const ns = `tm${randomBytes(3).toString("hex")}`;
  const rsmq = new RedisSMQ({ host: target.host, port: target.port, ns, telemetry: telemetryOption(mode, sdk) });
  if (!rsmq.connected) await new Promise<void>((resolve) => rsmq.once("connect", () => resolve()));
  await rsmq.createQueueAsync({ qname: "bench" });
  return { rsmq, qname: "bench" };
}

async function lanes(total: number, lane: (claim: () => boolean) => Promise<void>): Promise<void> {
  let claimed = 0;
  const claim = (): boolean => (claimed < total ? ((claimed += 1), true) : false);
  await Promise.all(Array.from({ length: IN_FLIGHT }, () => lane(claim)));
}

function sendCase(mode: TelemetryMode, sdk: RecordingSdk): ThroughputCase {
  return {
    key: `send ${mode}`,
    library: `rsmq-next, telemetry ${mode}`,
    kind: "send",
    how: `sendMessage, ${IN_FLIGHT} in flight`,
    concurrency: IN_FLIGHT,
    baseline: "send off",
    async prepare(target, total) {
      const { rsmq, qname } = await open(target, mode, sdk);
      const run = (): Promise<void> =>
        lanes(total, async (claim) => {
          while (claim()) await rsmq.sendMessageAsync({ qname, message: BODY });
        });
      return {
        run,
        async cleanup() {
          sdk.drain();
          await rsmq.deleteQueueAsync({ qname });
          await rsmq.quitAsync();
        },
      };
    },
  };
}

function workerCase(mode: TelemetryMode, sdk: RecordingSdk): ThroughputCase {
  return {
    key: `Worker ${mode}`,
    library: `rsmq-next, telemetry ${mode}`,
    kind: "receive+delete",
    how: `Worker, concurrency ${IN_FLIGHT}, no-op handler`,
    concurrency: IN_FLIGHT,
    baseline: "Worker off",
    async prepare(target, total) {
      const { rsmq, qname } = await open(target, mode, sdk);
      // Filled by the same instance, so the messages carry a context in the SDK case (not timed).
      await lanes(total, async (claim) => {
        while (claim()) await rsmq.sendMessageAsync({ qname, message: BODY });
      });
      sdk.drain();
      const worker = new RedisSMQ.Worker(rsmq, { qname, concurrency: IN_FLIGHT, handler: () => undefined });
      return {
        run: () => handleAll(worker, total),
        async cleanup() {
          await worker.stop();
          sdk.drain();
          await rsmq.deleteQueueAsync({ qname });
          await rsmq.quitAsync();
        },
      };
    },
  };
}

/** Measures every case `rounds` times, interleaved, after a quarter-size warm-up round. */
export async function measureTelemetry(
  target: Target,
  options: { messages: number; rounds: number },
  log: (line: string) => void,
): Promise<TelemetryResult> {
  const sdk = new RecordingSdk();
  // What an application's SDK set-up registers: without it, a span cannot be a parent across awaits.
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const cases = TELEMETRY_MODES.flatMap((mode) => [sendCase(mode, sdk), workerCase(mode, sdk)]);
  const loadBefore = loadavg();
  const probe = await probeClient(target);
  const rounds: Map<string, ThroughputSample>[] = [];
  try {
    log(`telemetry: warm-up round (load average ${loadBefore.map((value) => value.toFixed(2)).join(", ")})`);
    for (const testCase of cases) await measureThroughput(target, testCase, Math.ceil(options.messages / 4), probe);
    sdk.recorded = 0;
    for (let round = 1; round <= options.rounds; round += 1) {
      log(`telemetry: round ${round}/${options.rounds}`);
      const samples = new Map<string, ThroughputSample>();
      for (const testCase of cases) samples.set(testCase.key, await measureThroughput(target, testCase, options.messages, probe));
      rounds.push(samples);
    }
  } finally {
    await probe.quit();
    context.disable();
    await sdk.shutdown();
  }
  const rows = cases.map((testCase): TelemetryRow => {
    const samples = rounds.map((round) => round.get(testCase.key)!);
    const ratios = rounds.map((round) => round.get(testCase.key)!.perSecond / round.get(testCase.baseline)!.perSecond);
    const [what, ...mode] = testCase.key.split(" ");
    return {
      key: testCase.key,
      what: what as TelemetryRow["what"],
      mode: mode.join(" ") as TelemetryMode,
      perSecond: median(samples.map((sample) => sample.perSecond)),
      ratioToOff: median(ratios),
      clientCpuMicrosPerMessage: median(samples.map((sample) => sample.clientCpuMicrosPerMessage)),
      cpuMicrosPerMessage: median(samples.map((sample) => sample.cpuMicrosPerMessage)),
    };
  });
  return { messages: options.messages, rounds: options.rounds, loadBefore, loadAfter: loadavg(), rows, spansRecorded: sdk.recorded };
}

/** The side-by-side table, as Markdown (also readable on a terminal). */
export function telemetryTable(result: TelemetryResult): string {
  const load = (values: number[]): string => values.map((value) => value.toFixed(2)).join(", ");
  const lines = [
    `What telemetry costs: ${IN_FLIGHT} in flight, ${result.messages.toLocaleString("en-US")} messages per case, ` +
      `medians of ${result.rounds} interleaved rounds; load average ${load(result.loadBefore)} before, ${load(result.loadAfter)} after; ` +
      `${result.spansRecorded.toLocaleString("en-US")} spans recorded by the SDK case.`,
    "",
    "| what | telemetry | msg/s | × off | client CPU µs/msg | Redis CPU µs/msg |",
    "| --- | --- | ---: | ---: | ---: | ---: |",
  ];
  for (const row of result.rows) {
    lines.push(
      `| ${row.what === "Worker" ? `Worker C=${IN_FLIGHT}` : `send C=${IN_FLIGHT}`} | ${row.mode} | ${Math.round(row.perSecond).toLocaleString("en-US")} | ` +
        `${row.ratioToOff.toFixed(2)}× | ${row.clientCpuMicrosPerMessage.toFixed(1)} | ${row.cpuMicrosPerMessage.toFixed(1)} |`,
    );
  }
  return lines.join("\n");
}
