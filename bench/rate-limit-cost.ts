/**
 * What a rate limit that does not bind costs a Worker: a Worker at concurrency 1 and at 50
 * draining a filled queue with no limit, and the same with a limit far above its throughput
 * (1,000,000 a second, with a burst of one batch, so that a batch receive is never cut), side by
 * side in one run. Every case once per round, rounds interleaved, medians; ratios to "no limit"
 * are taken within each round. The limited case checks its limit is in force before it is timed,
 * so a run that measured an unlimited queue cannot pass for a cheap limit.
 * `node build/bench/run.js --only rate-limit` runs this part alone.
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

export const RATE_LIMIT_MODES = ["no limit", "non-binding limit"] as const;
export type RateLimitMode = (typeof RATE_LIMIT_MODES)[number];

export interface RateLimitRow {
  key: string;
  concurrency: number;
  mode: RateLimitMode;
  perSecond: number;
  /** Median over rounds of this case's msg/s over the same Worker's with no limit in that round. */
  ratioToNone: number;
  clientCpuMicrosPerMessage: number;
  cpuMicrosPerMessage: number;
}

export interface RateLimitResult {
  messages: number;
  rounds: number;
  loadBefore: number[];
  loadAfter: number[];
  limit: { max: number; perMs: number };
  rows: RateLimitRow[];
}

function workerCase(concurrency: number, mode: RateLimitMode): ThroughputCase {
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
      if (mode === "non-binding limit") {
        await rsmq.setRateLimitAsync({ qname, limits: [{ ...NON_BINDING, burst: concurrency }] });
        const { rateLimit } = await rsmq.getQueueAttributesAsync({ qname });
        if (rateLimit?.limits[0]?.max !== NON_BINDING.max) throw new Error("bench: the rate limit is not in force");
      }
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
export async function measureRateLimitCost(
  target: Target,
  options: { messages: number; rounds: number },
  log: (line: string) => void,
): Promise<RateLimitResult> {
  const cases = CONCURRENCIES.flatMap((concurrency) => RATE_LIMIT_MODES.map((mode) => workerCase(concurrency, mode)));
  const loadBefore = loadavg();
  const probe = await probeClient(target);
  const rounds: Map<string, ThroughputSample>[] = [];
  try {
    log(`rate-limit: warm-up round (load average ${loadBefore.map((value) => value.toFixed(2)).join(", ")})`);
    for (const testCase of cases) await measureThroughput(target, testCase, Math.ceil(options.messages / 4), probe);
    for (let round = 1; round <= options.rounds; round += 1) {
      log(`rate-limit: round ${round}/${options.rounds}`);
      const samples = new Map<string, ThroughputSample>();
      // The two modes take turns at going first, so neither always runs on a warmer server.
      const order = round % 2 === 0 ? [...cases].reverse() : cases;
      for (const testCase of order) samples.set(testCase.key, await measureThroughput(target, testCase, options.messages, probe));
      rounds.push(samples);
    }
  } finally {
    await probe.quit();
  }
  const rows = cases.map((testCase): RateLimitRow => {
    const samples = rounds.map((round) => round.get(testCase.key)!);
    const ratios = rounds.map((round) => round.get(testCase.key)!.perSecond / round.get(testCase.baseline)!.perSecond);
    return {
      key: testCase.key,
      concurrency: testCase.concurrency,
      mode: testCase.key.endsWith("no limit") ? "no limit" : "non-binding limit",
      perSecond: median(samples.map((sample) => sample.perSecond)),
      ratioToNone: median(ratios),
      clientCpuMicrosPerMessage: median(samples.map((sample) => sample.clientCpuMicrosPerMessage)),
      cpuMicrosPerMessage: median(samples.map((sample) => sample.cpuMicrosPerMessage)),
    };
  });
  return { messages: options.messages, rounds: options.rounds, loadBefore, loadAfter: loadavg(), limit: { ...NON_BINDING }, rows };
}

/** The side-by-side table, as Markdown (also readable on a terminal). */
export function rateLimitTable(result: RateLimitResult): string {
  const load = (values: number[]): string => values.map((value) => value.toFixed(2)).join(", ");
  const lines = [
    `What a rate limit that does not bind costs a Worker: ${result.limit.max.toLocaleString("en-US")} per ` +
      `${result.limit.perMs} ms with a burst of one batch, ${result.messages.toLocaleString("en-US")} messages per case, ` +
      `medians of ${result.rounds} interleaved rounds; load average ${load(result.loadBefore)} before, ${load(result.loadAfter)} after.`,
    "",
    "| Worker | rate limit | msg/s | × no limit | client CPU µs/msg | Redis CPU µs/msg |",
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
