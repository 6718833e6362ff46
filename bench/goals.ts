/**
 * The speed goals, held against one run's results: each goal, its target, what the run measured
 * and whether it is met or by how much it falls short. Beside each throughput goal, what a message
 * cost the client and Redis in CPU in that run, because one client and one connection cannot go
 * faster than 1 / (client + Redis CPU per message) when they take turns: the data a reader needs to
 * tell a slow library from a saturated machine. Each goal's ratio is taken within the run, except
 * the two that hold the Worker against its own figures in the run before issue 37, which the run's
 * record carries (bench/reference-run.ts). Why a goal falls short is not something a run can say:
 * bench/README.md has a written section for it, outside the generated block.
 */
import { ratiosOf } from "./ratios";
import type { RowRatios } from "./ratios";
import { REFERENCE_RUN_FILE } from "./reference-run";
import type { BenchResults, ThroughputResult } from "./suite";

export const NOT_MEASURED = "not measured in this run";

export interface GoalCpu {
  /** Client (bench process) and Redis CPU per message, µs. */
  client: number;
  redis: number;
}

export interface GoalRow {
  goal: string;
  /** The same in a few words, for the README's headline block. */
  short: string;
  /** "≥ 2×", "≤ 0.60×", "≥ 0.85 of floor". */
  target: string;
  measured: string;
  /** "met", "short by 12%", "over by 30%", or "–" when not measured. */
  verdict: string;
  met?: boolean;
  /** rsmq-next's row, and the row it is held against (rsmq 0.12.4, or the floor). */
  cpu?: GoalCpu;
  against?: GoalCpu & { label: string };
}

/** A goal's words; some name what the run was held against (BullMQ's version, the earlier run). */
type Words = string | ((results: BenchResults) => string);

interface Spec {
  goal: Words;
  short: Words;
  /** At least (higher is better) or at most (lower is better). */
  direction: "at least" | "at most";
  target: number;
  unit: (value: number) => string;
  measure(results: BenchResults): { value: number; row?: ThroughputResult; against?: ThroughputResult; againstLabel?: string } | undefined;
}

const times = (value: number): string => `${value.toFixed(2)}×`;
const ofFloor = (value: number): string => `${value.toFixed(2)} of floor`;
const bytesPerMessage = (value: number): string => `${value.toFixed(2)} B/msg`;

function throughputRow(results: BenchResults, key: string): ThroughputResult | undefined {
  return results.throughput.find((row) => row.key === key);
}

/** A ratio of an rsmq-next row against its rsmq 0.12.4 baseline. */
function againstRsmq(key: string, pick: (ratios: RowRatios) => number): Spec["measure"] {
  return (results) => {
    const row = throughputRow(results, key);
    const against = row && throughputRow(results, row.baseline);
    const ratios = row && ratiosOf(results.throughput, row);
    return row && against && ratios ? { value: pick(ratios), row, against, againstLabel: against.library } : undefined;
  };
}

/** A ratio of an rsmq-next row against another row of the same run (BullMQ's, say). */
function againstRow(key: string, otherKey: string, label: (results: BenchResults) => string): Spec["measure"] {
  return (results) => {
    const row = throughputRow(results, key);
    const against = throughputRow(results, otherKey);
    return row && against ? { value: row.perSecond / against.perSecond, row, against, againstLabel: label(results) } : undefined;
  };
}

/** "BullMQ 6.7.6", as the run recorded it. */
const bullmq = (results: BenchResults): string => `BullMQ${results.versions.bullmq ? ` ${results.versions.bullmq}` : ""}`;

/** The run before issue 37 in words: "the run of 2026-12-01 (6,325 msg/s)", or its file where this run did not read it. */
function referenceWords(results: BenchResults, key: string): string {
  const reference = results.reference;
  const row = reference?.rows.find((entry) => entry.key === key);
  if (!reference || !row) return `the run before issue 37 (${REFERENCE_RUN_FILE})`;
  return `the run of ${reference.date.slice(0, 10)} (${Math.round(row.perSecond).toLocaleString("en-US")} msg/s)`;
}

/**
 * A row against its own figure in the run before issue 37, as this run recorded it. That figure
 * comes from another run (another day, maybe another machine and load), so each is first taken
 * against the same run's rsmq 0.12.4 doing the same (its baseline row): the value is this run's
 * × rsmq over that run's × rsmq, in which the machine's speed on the day drops out. The CPU beside
 * it is that run's.
 */
function againstReference(key: string): Spec["measure"] {
  return (results) => {
    const row = throughputRow(results, key);
    const reference = results.reference;
    const before = reference?.rows.find((entry) => entry.key === key);
    const baselineNow = row && throughputRow(results, row.baseline);
    const baselineBefore = row && reference?.rows.find((entry) => entry.key === row.baseline);
    if (!row || !reference || !before || !baselineNow || !baselineBefore) return undefined;
    const against = { ...row, ...before, samples: [] };
    const value = row.perSecond / baselineNow.perSecond / (before.perSecond / baselineBefore.perSecond);
    return { value, row, against, againstLabel: `run of ${reference.date.slice(0, 10)}` };
  };
}

const SPECS: Spec[] = [
  {
    goal: "sendMessage, 50 in flight on one instance, against rsmq 0.12.4",
    short: "send, 50 in flight, × rsmq 0.12.4",
    direction: "at least",
    target: 2,
    unit: times,
    measure: againstRsmq("rsmq-next send C=50", (ratios) => ratios.throughput),
  },
  {
    goal: "receiveMessage + deleteMessage, 50 in flight on one instance, against rsmq 0.12.4",
    short: "receive + delete, 50 in flight, × rsmq 0.12.4",
    direction: "at least",
    target: 1.5,
    unit: times,
    measure: againstRsmq("rsmq-next receive+delete C=50", (ratios) => ratios.throughput),
  },
  {
    goal: "sendMessage, 1 in flight, against the floor (EVALSHA of `return 1` on the same client)",
    short: "send, 1 in flight, of the floor (trivial EVALSHA, same client)",
    direction: "at least",
    target: 0.85,
    unit: ofFloor,
    measure(results) {
      const row = throughputRow(results, "rsmq-next send C=1");
      const floor = row?.floor === undefined ? undefined : throughputRow(results, row.floor);
      const ratio = row && ratiosOf(results.throughput, row)?.floor;
      return ratio !== undefined && floor ? { value: ratio, row, against: floor, againstLabel: "floor" } : undefined;
    },
  },
  {
    goal: "Worker, concurrency 50, against rsmq 0.12.4's receive + delete at 50 in flight",
    short: "Worker, concurrency 50, × rsmq 0.12.4 receive + delete",
    direction: "at least",
    target: 2,
    unit: times,
    measure: againstRsmq("rsmq-next Worker C=50", (ratios) => ratios.throughput),
  },
  {
    goal: (results) => `Worker, concurrency 1, against ${bullmq(results)}'s Worker at concurrency 1`,
    short: (results) => `Worker, concurrency 1, × ${bullmq(results)}'s Worker, concurrency 1`,
    direction: "at least",
    target: 1.5,
    unit: times,
    measure: againstRow("rsmq-next Worker C=1", "bullmq process C=1", bullmq),
  },
  ...[
    { c: 1, target: 1.5 },
    { c: 50, target: 1 },
  ].map(({ c, target }): Spec => ({
    goal: (results) =>
      `Worker, concurrency ${c}, against its own figure in ${referenceWords(results, `rsmq-next Worker C=${c}`)}, each × rsmq 0.12.4 in its run`,
    short: (results) => `Worker, concurrency ${c}, × its figure in ${referenceWords(results, `rsmq-next Worker C=${c}`)}, each × rsmq`,
    direction: "at least",
    target,
    unit: times,
    measure: againstReference(`rsmq-next Worker C=${c}`),
  })),
  {
    goal: "receiveMessages + deleteMessages of 50, against rsmq 0.12.4's receive + delete at 50 in flight",
    short: "receiveMessages + deleteMessages of 50, × rsmq 0.12.4 receive + delete",
    direction: "at least",
    target: 3,
    unit: times,
    measure: againstRsmq("rsmq-next batch 50", (ratios) => ratios.throughput),
  },
  ...[50, 1].flatMap((c): Spec[] => [
    {
      goal: `Redis CPU per message, sendMessage, ${c} in flight, against rsmq 0.12.4`,
      short: `Redis CPU per message, send, ${c} in flight, × rsmq 0.12.4`,
      direction: "at most",
      target: 0.6,
      unit: times,
      measure: againstRsmq(`rsmq-next send C=${c}`, (ratios) => ratios.cpu),
    },
    {
      goal: `Redis CPU per message, receiveMessage + deleteMessage, ${c} in flight, against rsmq 0.12.4`,
      short: `Redis CPU per message, receive + delete, ${c} in flight, × rsmq 0.12.4`,
      direction: "at most",
      target: 0.6,
      unit: times,
      measure: againstRsmq(`rsmq-next receive+delete C=${c}`, (ratios) => ratios.cpu),
    },
  ]),
  ...(["heapUsed", "rss"] as const).map((which): Spec => ({
    goal: `Worker (concurrency 50) over many messages: ${which === "rss" ? "RSS" : "heap used after GC"}, growth per message`,
    short: `Worker over many messages: ${which === "rss" ? "RSS" : "heap"} growth per message`,
    direction: "at most",
    // A leak of one byte a message is a megabyte a million: flat, within sampling noise.
    target: 1,
    unit: bytesPerMessage,
    measure: (results) => (results.memory ? { value: results.memory[which].bytesPerMessage } : undefined),
  })),
];

function verdict(spec: Spec, value: number): { verdict: string; met: boolean } {
  const met = spec.direction === "at least" ? value >= spec.target : value <= spec.target;
  if (met) return { verdict: "met", met };
  const percent = spec.direction === "at least" ? (1 - value / spec.target) * 100 : (Math.max(value, 0) / spec.target - 1) * 100;
  return { verdict: `${spec.direction === "at least" ? "short" : "over"} by ${percent.toFixed(0)}%`, met };
}

const cpuOf = (row: ThroughputResult): GoalCpu => ({ client: row.clientCpuMicrosPerMessage, redis: row.cpuMicrosPerMessage });

/** Every goal, in order, measured or not. */
export function goalRows(results: BenchResults): GoalRow[] {
  const words = (text: Words): string => (typeof text === "string" ? text : text(results));
  return SPECS.map((spec) => {
    const goal = words(spec.goal);
    const short = words(spec.short);
    const target = `${spec.direction === "at least" ? "≥" : "≤"} ${spec.unit(spec.target)}`;
    const measured = spec.measure(results);
    if (!measured || !Number.isFinite(measured.value)) return { goal, short, target, measured: NOT_MEASURED, verdict: "–" };
    return {
      goal,
      short,
      target,
      measured: spec.unit(measured.value),
      ...verdict(spec, measured.value),
      ...(measured.row && { cpu: cpuOf(measured.row) }),
      ...(measured.against && { against: { label: measured.againstLabel ?? measured.against.how, ...cpuOf(measured.against) } }),
    };
  });
}
