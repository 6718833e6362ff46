/**
 * The figures the READMEs quote, generated from a run's results so they never drift from it:
 * the headline table (README.md's `bench:headline` block, and bench/README.md's) and the full
 * results (bench/README.md's `bench:results` block). A full run at the default place, and
 * `--from` over such a run, rewrite both blocks; a file without the markers is left alone.
 */
import { existsSync, readFileSync, writeFileSync } from "fs";
import { endMarker, replaceBlock, startMarker } from "./markers";
import type { ConnectionsResult } from "./connections";
import { NOT_MEASURED } from "./goals";
import { formatDuration, formatLoad, machineWords, partLoad, PART, quietRule } from "./machine-load";
import { formatCount, formatMs, formatRange, formatRatio, goalsSummary, markdownReport, rowRatios } from "./report";
import type { BenchResults } from "./suite";

export const HEADLINE_BLOCK = "headline";
export const RESULTS_BLOCK = "results";
export const DURATION_BLOCK = "duration";
export const CONNECTIONS_BLOCK = "connections";

/** A full run's record as --from reads it: the suite's results and the connections part run after it. */
export type RunRecord = BenchResults & { connections?: ConnectionsResult };

/** 1,481×, 61×, 1.75×. */
export function formatFactor(value: number): string {
  if (!Number.isFinite(value) || value <= 0) return "n/a";
  if (value >= 100) return `${Math.round(value).toLocaleString("en-US")}×`;
  return value >= 10 ? `${Math.round(value)}×` : `${value.toFixed(2)}×`;
}

/** A ratio rsmq-next / rsmq in words, the factor always at least 1: "1.75× higher", "61× lower". */
function factor(ratio: number, up: string, down: string): string {
  if (!Number.isFinite(ratio) || ratio <= 0) return "n/a";
  return ratio >= 1 ? `${formatFactor(ratio)} ${up}` : `${formatFactor(1 / ratio)} ${down}`;
}

interface HeadlineRow {
  operation: string;
  rsmq: string;
  next: string;
  ratio: string;
  /** For throughput: the lowest and highest of the same ratio within a round. */
  byRound?: string;
}

/** The headline rows this run has data for (a quick run has no Worker at its real 30 s cap). */
export function headlineRows(results: BenchResults): HeadlineRow[] {
  const rows: HeadlineRow[] = [];
  const idle = (prefix: string) => results.idle.find((row) => row.name.startsWith(prefix));
  const worker = idle("rsmq-next Worker, defaults") ?? idle("rsmq-next Worker");
  for (const [name, label] of [
    ["rsmq 0.12.4, polled", "Redis commands an hour, one idle consumer: rsmq polled every 100 ms; the Worker at its defaults"],
    ["rsmq 0.12.4 + rsmq-worker", "The same, rsmq under rsmq-worker's default back-off"],
  ] as const) {
    const old = idle(name);
    if (old && worker) {
      rows.push({
        operation: label,
        rsmq: formatCount(old.clientPerHour),
        next: formatCount(worker.clientPerHour),
        ratio: factor(worker.clientPerHour / old.clientPerHour, "more", "fewer"),
      });
    }
  }

  const delivery = (consumer: string, delayed: boolean) =>
    results.delivery.find(
      (row) => row.consumer.startsWith(consumer) && row.delaySeconds > 0 === delayed && row.producer.endsWith(", same process"),
    );
  for (const [delayed, pick, label] of [
    [false, "p99", "Send to handler start, idle consumer, p99 (producer in the same process; rsmq polled every 100 ms)"],
    [true, "p50", `Lateness of a delayed message (delay ${results.config.delivery.delaySeconds} s), p50`],
  ] as const) {
    const old = delivery("rsmq 0.12.4, polled", delayed);
    const next = delivery("rsmq-next Worker", delayed);
    if (old && next) {
      rows.push({
        operation: label,
        rsmq: formatMs(old.latency[pick]),
        next: formatMs(next.latency[pick]),
        ratio: factor(next.latency[pick] / old.latency[pick], "higher", "lower"),
      });
    }
  }

  const throughput = (key: string) => results.throughput.find((row) => row.key === key);
  for (const [key, label] of [
    ["rsmq-next send C=1", "sendMessage, messages a second, 1 in flight"],
    ["rsmq-next receive+delete C=1", "receiveMessage + deleteMessage, messages a second, 1 in flight"],
    ["rsmq-next deleteAndReceive C=1", "The same with deleteAndReceive (the delete and the next receive in one call), 1 in flight"],
    ["rsmq-next Worker C=1", "Consuming, messages a second, 1 in flight: the Worker against rsmq's receive + delete"],
    ["rsmq-next Worker C=50", "Consuming, messages a second, 50 in flight: the Worker against rsmq's receive + delete"],
    ["rsmq-next batch 50", "The same with receiveMessages + deleteMessages of 50"],
  ] as const) {
    const next = throughput(key);
    const old = next && throughput(next.baseline);
    if (next && old) {
      const ratios = rowRatios(results, next);
      rows.push({
        operation: label,
        rsmq: formatCount(old.perSecond),
        next: formatCount(next.perSecond),
        ratio: factor(ratios.throughput, "higher", "lower"),
        ...(ratios.throughputByRound && { byRound: formatRange(ratios.throughputByRound) }),
      });
    }
  }
  const cpu = throughput("rsmq-next Worker C=50");
  const cpuBaseline = cpu && throughput(cpu.baseline);
  if (cpu && cpuBaseline) {
    rows.push({
      operation: "Redis CPU per message consumed, 50 in flight: the Worker against rsmq's receive + delete",
      rsmq: `${cpuBaseline.cpuMicrosPerMessage.toFixed(1)} µs`,
      next: `${cpu.cpuMicrosPerMessage.toFixed(1)} µs`,
      ratio: factor(rowRatios(results, cpu).cpu, "more", "less"),
    });
  }

  const network = (lib: string) => results.network.operations.find((row) => row.operation === "sendMessage" && row.lib === lib);
  const oldSend = network("rsmq");
  const nextSend = network("rsmq-next");
  if (oldSend && nextSend) {
    rows.push({
      operation: `sendMessage with ${results.network.delayMs} ms added each way, p50`,
      rsmq: formatMs(oldSend.latency.p50),
      next: formatMs(nextSend.latency.p50),
      ratio: factor(nextSend.latency.p50 / oldSend.latency.p50, "higher", "lower"),
    });
  }
  return rows;
}

/** How long the run took, from its record: "7.4 minutes", or "5.7 minutes before its connections part, which this run did not time". */
function durationWords(results: RunRecord): string {
  const timedConnections = results.parts?.some((part) => part.name === PART.connections);
  const minutes = formatDuration(results.durationMs);
  return results.connections && !timedConnections ? `${minutes} before its connections part, which this run did not time` : minutes;
}

/** How the throughput ratios are taken, for the run descriptions. */
function ratiosWords(results: BenchResults): string {
  return (
    `for throughput and CPU, the ratio of the medians of ${results.config.throughput.repetitions} interleaved rounds, ` +
    "with the lowest and highest ratio within a round beside it"
  );
}

/** Where and with what the run was made, in full. */
export function runDescription(results: RunRecord): string {
  const { machine, versions } = results;
  const libraries = [
    `rsmq-next ${versions["rsmq-next"]}`,
    `rsmq ${versions.rsmq}${versions["redis (rsmq's node_redis)"] ? ` (node_redis ${versions["redis (rsmq's node_redis)"]})` : ""}`,
    `node-redis ${versions.redis}`,
    ...(versions.bullmq ? [`BullMQ ${versions.bullmq}${versions.ioredis ? ` (ioredis ${versions.ioredis})` : ""}`] : []),
    `redis-server ${versions["redis-server"]}`,
  ];
  const load = (values: number[] | undefined): string => (values?.length ? formatLoad(values[0]) : "not recorded");
  return (
    `One \`npm run bench\` (${results.mode} run, ${results.date.slice(0, 10)}, ${durationWords(results)}) on ${machineWords(results)}: ` +
    `${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node.replace(/^v/, "")}, ` +
    `load average ${load(machine.loadAverageAtStart)} at the start and ${load(machine.loadAverageAtEnd)} at the end` +
    `${results.parts ? "" : " (the parts' loads not recorded in this run)"}; ${libraries.join(", ")}. ` +
    `Each table gives the load over its part; ${quietRule(results)}. ` +
    "Absolute numbers depend on the machine and on whatever else runs on it; compare the ratios, which are taken " +
    `within the run (${ratiosWords(results)}).`
  );
}

/** The same in one sentence, for the top-level README. */
export function runSummary(results: RunRecord): string {
  const { machine, versions } = results;
  return (
    `One ${results.mode} run on ${results.date.slice(0, 10)}, on ${machineWords(results)}: ${machine.cpus} CPUs (${machine.cpuModel}), ` +
    `Node ${machine.node.replace(/^v/, "")}, redis-server ${versions["redis-server"]}, rsmq-next ${versions["rsmq-next"]} against ` +
    `rsmq ${versions.rsmq}. Absolute numbers depend on the machine; the ratios are taken within the run (${ratiosWords(results)}).`
  );
}

/** The headline table, with a note where the run predates today's idle traffic (the health check riding the look). */
export function headlineTable(results: BenchResults): string {
  const lines = ["| Operation | rsmq 0.12.4 | rsmq-next | rsmq-next against rsmq |", "| --- | ---: | ---: | ---: |"];
  for (const row of headlineRows(results)) {
    lines.push(`| ${row.operation} | ${row.rsmq} | ${row.next} | **${row.ratio}**${row.byRound ? ` (${row.byRound} by round)` : ""} |`);
  }
  const worker = results.idle.find((row) => row.name.startsWith("rsmq-next Worker"));
  const pings = worker?.byName.ping ?? 0;
  const looks = (worker?.byName.evalsha ?? 0) + (worker?.byName.evalsha_ro ?? 0);
  if (worker && (pings === 0 || pings > looks + 1)) {
    lines.push(
      "",
      "The idle Worker's figure was measured before the wake subscription's health check rode the Worker's look " +
        "(none at first, then a PING every 5 s: 720 an hour); at today's defaults an idle Worker sends at most 2 commands " +
        "per 30 s cap, 240 an hour (`test/worker/idle-default.test.ts`).",
    );
  }
  return lines.join("\n");
}

/** README.md's block: the headline table, the goals in short, and the run they come from. */
export function headlineBlock(results: RunRecord): string {
  return [
    headlineTable(results),
    "",
    "The speed goals, from the same run ([bench/README.md](bench/README.md#goals) has the CPU figures behind them and why a goal falls short):",
    "",
    ...goalsSummary(results),
    "",
    runSummary(results),
  ].join("\n");
}

/** bench/README.md's results: the run, the headline table, then every table of the run. */
export function resultsBlock(results: RunRecord): string {
  const day = results.date.slice(0, 10);
  return [
    runDescription(results),
    "",
    "### In short",
    "",
    headlineTable(results),
    "",
    "### Every table",
    "",
    `The record of the run, every sample included: [results/${day}.json](results/${day}.json).`,
    "",
    markdownReport(results),
  ].join("\n");
}

/** bench/README.md's "Running it": how long the last full run took, and where. */
export function durationBlock(results: RunRecord): string {
  const connections = results.parts?.find((part) => part.name === PART.connections);
  return (
    `The last full run, on ${results.date.slice(0, 10)}, took ${durationWords(results)}` +
    (connections ? `, of which the connections part ${formatDuration(connections.durationMs)}` : "") +
    `; it ran on ${machineWords(results)}.`
  );
}

/** The `connections` part's rows in table order: each kind, rsmq 0.12.4 first; the Worker is held against rsmq's receive+delete. */
const CONNECTION_KINDS = ["send", "receive+delete", "Worker"] as const;

/** bench/README.md's "Why ... connections" table: msg/s, × rsmq (ratio of the medians), CPU per message. */
export function connectionsBlock(results: RunRecord): string {
  const part = results.connections;
  if (!part) return `The \`connections\` part: ${NOT_MEASURED}.`;
  const load = partLoad(results, PART.connections);
  const rsmq = (kind: string) =>
    part.rows.find((row) => row.library === "rsmq 0.12.4" && row.kind === (kind === "Worker" ? "receive+delete" : kind));
  const lines = [
    `The \`connections\` part of the last full run (${results.date.slice(0, 10)}, the same run as the results below, with rounds of its own: ` +
      `${part.messages.toLocaleString("en-US")} messages per case at 50 in flight, medians of ${part.rounds} interleaved rounds; ` +
      `× rsmq is the median msg/s over rsmq 0.12.4's median, receive+delete's for the Worker). The run was on ${machineWords(results)}; ` +
      (load
        ? `load average ${formatLoad(load.start)} at the start of this part, ${formatLoad(load.end)} at the end.`
        : "load not recorded for this part."),
    "",
    "| what | library | msg/s | × rsmq | client CPU µs/msg | Redis CPU µs/msg |",
    "| --- | --- | ---: | ---: | ---: | ---: |",
  ];
  for (const kind of CONNECTION_KINDS) {
    const baseline = rsmq(kind);
    for (const row of part.rows.filter((entry) => entry.kind === kind)) {
      const ratio = baseline ? formatRatio(row.perSecond / baseline.perSecond) : "n/a";
      lines.push(
        `| ${kind === "Worker" ? "Worker C=50" : kind} | ${row.library} | ${formatCount(row.perSecond)} | ${ratio} | ` +
          `${row.clientCpuMicrosPerMessage.toFixed(1)} | ${row.cpuMicrosPerMessage.toFixed(1)} |`,
      );
    }
  }
  return lines.join("\n");
}

export type BlockUpdate = "updated" | "unchanged" | "no markers" | "no file";

/** Rewrites block `name` of the Markdown file at `path`; a file without its markers is left alone. */
export function updateBlock(path: string, name: string, content: string): BlockUpdate {
  if (!existsSync(path)) return "no file";
  const text = readFileSync(path, "utf8");
  let next: string | undefined;
  try {
    next = replaceBlock(text, name, content);
  } catch (error) {
    throw new Error(`${path}: ${(error as Error).message}`);
  }
  if (next === undefined) return "no markers";
  if (next === text) return "unchanged";
  writeFileSync(path, next);
  return "updated";
}

/** For messages: the two markers of a block. */
export function markersOf(name: string): string {
  return `${startMarker(name)} ... ${endMarker(name)}`;
}
