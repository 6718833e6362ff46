/**
 * Why the default of `connections`: sendMessage and receive+delete at 50 in flight on one
 * RedisSMQ instance, and a Worker at concurrency 50, with 1, 2, 3 and 4 connections and with
 * `connections` left out (one, and a second opened under load), side by side with rsmq 0.12.4
 * (one connection, as it has) in the same run. Every case once per round, rounds
 * interleaved, medians; ratios to rsmq are taken within each round. Throughput moves with whatever
 * else runs on the machine (the load average is recorded); CPU per message hardly does.
 * `node build/bench/run.js --only connections` runs this part alone.
 */
import { randomBytes } from "crypto";
import { loadavg } from "os";
import RedisSMQ = require("../lib/index");
import { BODY, close, handleAll, isMessage, openOld } from "./clients";
import type { QueueApi } from "./clients";
import type { Target } from "./redis";
import { probeClient } from "./redis";
import { median } from "./stats";
import { measureThroughput } from "./throughput";
import type { Kind, ThroughputCase, ThroughputSample } from "./throughput";

/** The connection counts measured. */
export const CONNECTION_COUNTS = [1, 2, 3, 4];
const IN_FLIGHT = 50;

/** What a case measures: rsmq 0.12.4, rsmq-next with `connections` left out, or with that many. */
type Subject = "rsmq" | "default" | number;

export interface ConnectionsRow {
  key: string;
  kind: Kind | "Worker";
  /** "rsmq 0.12.4", or the number of connections of rsmq-next ("default": `connections` left out). */
  library: string;
  /** The connections asked for (rsmq 0.12.4: its one; 0 for the default, which opens 1 and grows to 2). */
  connections: number;
  perSecond: number;
  /** Median over rounds of this case's msg/s over rsmq 0.12.4's same kind in that round (Worker: receive+delete). */
  ratioToRsmq: number;
  clientCpuMicrosPerMessage: number;
  cpuMicrosPerMessage: number;
}

export interface ConnectionsResult {
  messages: number;
  rounds: number;
  /** 1, 5 and 15 minute load averages before and after the measurement (`uptime`). */
  loadBefore: number[];
  loadAfter: number[];
  rows: ConnectionsRow[];
}

async function openNext(target: Target, ns: string, connections: number | undefined): Promise<RedisSMQ> {
  const rsmq = new RedisSMQ({ host: target.host, port: target.port, ns, connections });
  if (!rsmq.connected) await new Promise<void>((resolve) => rsmq.once("connect", () => resolve()));
  return rsmq;
}

async function lanes(total: number, lane: (claim: () => boolean) => Promise<void>): Promise<void> {
  let claimed = 0;
  const claim = (): boolean => (claimed < total ? ((claimed += 1), true) : false);
  await Promise.all(Array.from({ length: IN_FLIGHT }, () => lane(claim)));
}

/** A fresh queue opened with rsmq or rsmq-next, filled with `fill` messages first (not timed). */
async function queue(target: Target, subject: Subject, fill: number): Promise<{ api: QueueApi; qname: string; done(): Promise<void> }> {
  const ns = `cn${randomBytes(3).toString("hex")}`;
  const qname = "bench";
  const api =
    subject === "rsmq"
      ? await openOld(target, { ns })
      : ((await openNext(target, ns, subject === "default" ? undefined : subject)) as unknown as QueueApi);
  await api.createQueueAsync({ qname });
  if (fill > 0) {
    const filler = await openNext(target, ns, 2);
    await lanes(fill, async (claim) => {
      while (claim()) await filler.sendMessageAsync({ qname, message: BODY });
    });
    await filler.quitAsync();
  }
  return {
    api,
    qname,
    async done() {
      await api.deleteQueueAsync({ qname });
      await close(api);
    },
  };
}

function label(subject: Subject): string {
  if (subject === "rsmq") return "rsmq 0.12.4";
  if (subject === "default") return "rsmq-next, default (1, 2nd on demand)";
  return `rsmq-next, ${subject} connection${subject === 1 ? "" : "s"}`;
}

function sendCase(subject: Subject): ThroughputCase {
  return {
    key: `${label(subject)} send`,
    library: label(subject),
    kind: "send",
    how: `sendMessage, ${IN_FLIGHT} in flight`,
    concurrency: IN_FLIGHT,
    baseline: `${label("rsmq")} send`,
    async prepare(target, total) {
      const { api, qname, done } = await queue(target, subject, 0);
      const run = (): Promise<void> =>
        lanes(total, async (claim) => {
          while (claim()) await api.sendMessageAsync({ qname, message: BODY });
        });
      return { run, cleanup: done };
    },
  };
}

function receiveDeleteCase(subject: Subject): ThroughputCase {
  return {
    key: `${label(subject)} receive+delete`,
    library: label(subject),
    kind: "receive+delete",
    how: `receiveMessage then deleteMessage, ${IN_FLIGHT} in flight`,
    concurrency: IN_FLIGHT,
    baseline: `${label("rsmq")} receive+delete`,
    async prepare(target, total) {
      const { api, qname, done } = await queue(target, subject, total);
      const run = (): Promise<void> =>
        lanes(total, async (claim) => {
          while (claim()) {
            const message = await api.receiveMessageAsync({ qname });
            if (!isMessage(message)) throw new Error("queue ran dry before every message was received");
            await api.deleteMessageAsync({ qname, id: message.id });
          }
        });
      return { run, cleanup: done };
    },
  };
}

function workerCase(subject: Subject): ThroughputCase {
  return {
    key: `${label(subject)} Worker`,
    library: label(subject),
    kind: "receive+delete",
    how: `Worker, concurrency ${IN_FLIGHT}, no-op handler`,
    concurrency: IN_FLIGHT,
    baseline: `${label("rsmq")} receive+delete`,
    async prepare(target, total) {
      const { api, qname, done } = await queue(target, subject, total);
      const worker = new RedisSMQ.Worker(api as unknown as RedisSMQ, { qname, concurrency: IN_FLIGHT, handler: () => undefined });
      return {
        run: () => handleAll(worker, total),
        async cleanup() {
          await worker.stop();
          await done();
        },
      };
    },
  };
}

function casesFor(counts: readonly number[]): ThroughputCase[] {
  const cases = [sendCase("rsmq"), receiveDeleteCase("rsmq")];
  for (const subject of ["default", ...counts] as const) cases.push(sendCase(subject), receiveDeleteCase(subject), workerCase(subject));
  return cases;
}

function connectionsOf(library: string): number {
  if (library === label("rsmq")) return 1;
  if (library === label("default")) return 0;
  return Number(/(\d+) connection/.exec(library)![1]);
}

/** Measures every case `rounds` times, interleaved, after a quarter-size warm-up round. */
export async function measureConnections(
  target: Target,
  options: { messages: number; rounds: number; counts?: readonly number[] },
  log: (line: string) => void,
): Promise<ConnectionsResult> {
  const counts = options.counts ?? CONNECTION_COUNTS;
  const cases = casesFor(counts);
  const loadBefore = loadavg();
  const probe = await probeClient(target);
  const rounds: Map<string, ThroughputSample>[] = [];
  try {
    log(`connections: warm-up round (load average ${loadBefore.map((value) => value.toFixed(2)).join(", ")})`);
    for (const testCase of cases) await measureThroughput(target, testCase, Math.ceil(options.messages / 4), probe);
    for (let round = 1; round <= options.rounds; round += 1) {
      log(`connections: round ${round}/${options.rounds}`);
      const samples = new Map<string, ThroughputSample>();
      for (const testCase of cases) samples.set(testCase.key, await measureThroughput(target, testCase, options.messages, probe));
      rounds.push(samples);
    }
  } finally {
    await probe.quit();
  }
  const rows = cases.map((testCase): ConnectionsRow => {
    const samples = rounds.map((round) => round.get(testCase.key)!);
    const ratios = rounds.map((round) => round.get(testCase.key)!.perSecond / round.get(testCase.baseline)!.perSecond);
    return {
      key: testCase.key,
      kind: testCase.how.startsWith("Worker") ? "Worker" : testCase.kind,
      library: testCase.library,
      connections: connectionsOf(testCase.library),
      perSecond: median(samples.map((sample) => sample.perSecond)),
      ratioToRsmq: median(ratios),
      clientCpuMicrosPerMessage: median(samples.map((sample) => sample.clientCpuMicrosPerMessage)),
      cpuMicrosPerMessage: median(samples.map((sample) => sample.cpuMicrosPerMessage)),
    };
  });
  return { messages: options.messages, rounds: options.rounds, loadBefore, loadAfter: loadavg(), rows };
}

/** The "why the default" table, as Markdown (also readable on a terminal). */
export function connectionsTable(result: ConnectionsResult): string {
  const load = (values: number[]): string => values.map((value) => value.toFixed(2)).join(", ");
  const lines = [
    `Why the default of \`connections\`: ${IN_FLIGHT} in flight on one instance, ${result.messages.toLocaleString("en-US")} messages per case, ` +
      `medians of ${result.rounds} interleaved rounds; load average ${load(result.loadBefore)} before, ${load(result.loadAfter)} after.`,
    "",
    "| what | library | msg/s | × rsmq | client CPU µs/msg | Redis CPU µs/msg |",
    "| --- | --- | ---: | ---: | ---: | ---: |",
  ];
  for (const kind of ["send", "receive+delete", "Worker"] as const) {
    for (const row of result.rows.filter((entry) => entry.kind === kind)) {
      lines.push(
        `| ${kind === "Worker" ? `Worker C=${IN_FLIGHT}` : kind} | ${row.library} | ${Math.round(row.perSecond).toLocaleString("en-US")} | ` +
          `${row.ratioToRsmq.toFixed(2)}× | ${row.clientCpuMicrosPerMessage.toFixed(1)} | ${row.cpuMicrosPerMessage.toFixed(1)} |`,
      );
    }
  }
  return lines.join("\n");
}
