/**
 * What a fleet control that does not bind costs a Worker: a Worker at concurrency 1 and at 50
 * draining a filled queue with no control, with a rate limit far above its throughput (1,000,000
 * a second, with a burst of one batch, so that a batch receive is never cut), and with a
 * concurrency limit far above its handlers (10,000 in flight), side by side in one run. Every case
 * once per round, rounds interleaved, medians; ratios to "no limit" are taken within each round.
 * Each limited case checks its limit is in force before it is timed, so a run that measured an
 * unlimited queue cannot pass for a cheap limit.
 * `node build/bench/run.js --only controls` runs this part alone.
 */
import { randomBytes } from "crypto";
import { loadavg } from "os";
import RedisSMQ = require("../lib/index");
import { BODY, handleAll } from "./clients";
import type { Target } from "./redis";
import { probeClient } from "./redis";
import { median } from "./stats";
import { measureThroughput } from "./throughput";
import type { ThroughputCase, ThroughputSample } from "./throughput";

/** The Worker's concurrencies measured (its batch size follows). */
const CONCURRENCIES = [1, 50] as const;

/** A limit no Worker here comes near: a million a second, a batch at once. */
const NON_BINDING = { max: 1_000_000, perMs: 1000 } as const;
/** A concurrency limit far above the 50 handlers of the widest Worker here. */
const NON_BINDING_CONCURRENCY = 10_000;

export const CONTROL_MODES = ["no limit", "non-binding rate limit", "non-binding concurrency"] as const;
export type ControlMode = (typeof CONTROL_MODES)[number];

export interface ControlRow {
  key: string;
  concurrency: number;
  mode: ControlMode;
  perSecond: number;
  /** Median over rounds of this case's msg/s over the same Worker's with no limit in that round. */
  ratioToNone: number;
  clientCpuMicrosPerMessage: number;
  cpuMicrosPerMessage: number;
}

export interface ControlsResult {
  messages: number;
  rounds: number;
  loadBefore: number[];
  loadAfter: number[];
  limit: { max: number; perMs: number };
  concurrencyLimit: number;
  rows: ControlRow[];
}

/** Puts the mode's control on the queue, and checks it is in force. */
async function applyControl(rsmq: RedisSMQ, qname: string, mode: ControlMode, concurrency: number): Promise<void> {
  if (mode === "non-binding rate limit") {
    await rsmq.setRateLimitAsync({ qname, limits: [{ ...NON_BINDING, burst: concurrency }] });
    const { rateLimit } = await rsmq.getQueueAttributesAsync({ qname });
    if (rateLimit?.limits[0]?.max !== NON_BINDING.max) throw new Error("bench: the rate limit is not in force");
  }
  if (mode === "non-binding concurrency") {
    await rsmq.setConcurrencyAsync({ qname, max: NON_BINDING_CONCURRENCY });
    const attributes = await rsmq.getQueueAttributesAsync({ qname });
    if (attributes.concurrency !== NON_BINDING_CONCURRENCY) throw new Error("bench: the concurrency limit is not in force");
  }
}

function workerCase(concurrency: number, mode: ControlMode): ThroughputCase {
  const none = `Worker C=${concurrency} no limit`;
  return {
    key: `Worker C=${concurrency} ${mode}`,
    library: `rsmq-next, ${mode}`,
    kind: "receive+delete",
    how: `Worker, concurrency ${concurrency}, no-op handler`,
    concurrency,
    baseline: none,
    async prepare(target, total) {
      const rsmq = new RedisSMQ({ host: target.host, port: target.port, ns: `rl${randomBytes(3).toString("hex")}` });
      const qname = "bench";
      await rsmq.createQueueAsync({ qname });
      await applyControl(rsmq, qname, mode, concurrency);
      for (let left = total; left > 0; left -= 1000) {
        await rsmq.sendMessagesAsync({ qname, messages: Array.from({ length: Math.min(1000, left) }, () => ({ message: BODY })) });
      }
      const worker = new RedisSMQ.Worker(rsmq, { qname, concurrency, handler: () => undefined });
      return {
        run: () => handleAll(worker, total),
        async cleanup() {
          await worker.stop();
          await rsmq.deleteQueueAsync({ qname });
          await rsmq.quitAsync();
        },
      };
    },
  };
}

/** Measures every case `rounds` times, interleaved, after a quarter-size warm-up round. */
export async function measureControlsCost(
  target: Target,
  options: { messages: number; rounds: number },
  log: (line: string) => void,
): Promise<ControlsResult> {
  const modes = new Map<string, ControlMode>(
    CONCURRENCIES.flatMap((concurrency) => CONTROL_MODES.map((mode) => [`Worker C=${concurrency} ${mode}`, mode] as const)),
  );
  const cases = CONCURRENCIES.flatMap((concurrency) => CONTROL_MODES.map((mode) => workerCase(concurrency, mode)));
  const loadBefore = loadavg();
  const probe = await probeClient(target);
  const rounds: Map<string, ThroughputSample>[] = [];
  try {
    log(`controls: warm-up round (load average ${loadBefore.map((value) => value.toFixed(2)).join(", ")})`);
    for (const testCase of cases) await measureThroughput(target, testCase, Math.ceil(options.messages / 4), probe);
    for (let round = 1; round <= options.rounds; round += 1) {
      log(`controls: round ${round}/${options.rounds}`);
      const samples = new Map<string, ThroughputSample>();
      // The modes take turns at going first, so none always runs on a warmer server.
      const order = round % 2 === 0 ? [...cases].reverse() : cases;
      for (const testCase of order) samples.set(testCase.key, await measureThroughput(target, testCase, options.messages, probe));
      rounds.push(samples);
    }
  } finally {
    await probe.quit();
  }
  const rows = cases.map((testCase): ControlRow => {
    const samples = rounds.map((round) => round.get(testCase.key)!);
    const ratios = rounds.map((round) => round.get(testCase.key)!.perSecond / round.get(testCase.baseline)!.perSecond);
    return {
      key: testCase.key,
      concurrency: testCase.concurrency,
      mode: modes.get(testCase.key)!,
      perSecond: median(samples.map((sample) => sample.perSecond)),
      ratioToNone: median(ratios),
      clientCpuMicrosPerMessage: median(samples.map((sample) => sample.clientCpuMicrosPerMessage)),
      cpuMicrosPerMessage: median(samples.map((sample) => sample.cpuMicrosPerMessage)),
    };
  });
  return {
    messages: options.messages,
    rounds: options.rounds,
    loadBefore,
    loadAfter: loadavg(),
    limit: { ...NON_BINDING },
    concurrencyLimit: NON_BINDING_CONCURRENCY,
    rows,
  };
}

/** The side-by-side table, as Markdown (also readable on a terminal). */
export function controlsTable(result: ControlsResult): string {
  const load = (values: number[]): string => values.map((value) => value.toFixed(2)).join(", ");
  const lines = [
    `What a control that does not bind costs a Worker: a rate limit of ${result.limit.max.toLocaleString("en-US")} per ` +
      `${result.limit.perMs} ms with a burst of one batch, or at most ${result.concurrencyLimit.toLocaleString("en-US")} in flight; ` +
      `${result.messages.toLocaleString("en-US")} messages per case, ` +
      `medians of ${result.rounds} interleaved rounds; load average ${load(result.loadBefore)} before, ${load(result.loadAfter)} after.`,
    "",
    "| Worker | control | msg/s | × no limit | client CPU µs/msg | Redis CPU µs/msg |",
    "| --- | --- | ---: | ---: | ---: | ---: |",
  ];
  for (const row of result.rows) {
    lines.push(
      `| C=${row.concurrency} | ${row.mode} | ${Math.round(row.perSecond).toLocaleString("en-US")} | ${row.ratioToNone.toFixed(2)}× | ` +
        `${row.clientCpuMicrosPerMessage.toFixed(1)} | ${row.cpuMicrosPerMessage.toFixed(1)} |`,
    );
  }
  return lines.join("\n");
}
