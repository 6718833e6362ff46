/**
 * Turns BenchResults into what people read: tables on stdout, the same tables as Markdown (for
 * bench/README.md), the JSON record, and the two SVG charts (idle commands per hour, delivery latency).
 */
import { mkdirSync, writeFileSync } from "fs";
import { cpus, loadavg } from "os";
import { join } from "path";
import pc = require("picocolors");
import { goalRows, NOT_MEASURED } from "./goals";
import type { GoalRow } from "./goals";
import { partLoadNote, PART } from "./machine-load";
import type { LoadRecord } from "./machine-load";
import { ratiosOf } from "./ratios";
import type { Range, RowRatios } from "./ratios";
import type { BenchResults } from "./suite";
import { renderBarChart } from "./svg-chart";

type Cell = string;
interface Table {
  title: string;
  note: string;
  headers: Cell[];
  rows: Cell[][];
}

const HOURS_IN_30_DAYS = 24 * 30;

export function formatCount(value: number): string {
  if (!Number.isFinite(value)) return "n/a";
  if (value >= 100) return Math.round(value).toLocaleString("en-US");
  return value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

/** 130 M, 4.1 M, 86 k: for chart labels. */
export function formatCompact(value: number): string {
  if (value >= 1e6) return `${(value / 1e6).toFixed(value >= 1e7 ? 0 : 1)} M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(value >= 1e4 ? 0 : 1)} k`;
  return formatCount(value);
}

export function formatMs(value: number): string {
  if (!Number.isFinite(value)) return "n/a";
  if (value >= 1000) return `${(value / 1000).toFixed(2)} s`;
  if (value >= 100) return `${value.toFixed(0)} ms`;
  return `${value.toFixed(value >= 10 ? 1 : 2)} ms`;
}

export function formatRatio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : "n/a";
}

/** A per-round range of ratios: "0.93× to 2.21×". */
export function formatRange(range: Range | undefined): string {
  return range ? `${formatRatio(range.min)} to ${formatRatio(range.max)}` : "–";
}

type ThroughputRow = BenchResults["throughput"][number];

/** The ratios a throughput row prints (ratios of the medians, bench/ratios.ts); NaN where its baseline is missing. */
export function rowRatios(results: BenchResults, row: ThroughputRow): RowRatios {
  return ratiosOf(results.throughput, row) ?? { throughput: Number.NaN, cpu: Number.NaN };
}

/** How many command connections each library instance had, as the run recorded it. */
export function connectionsWords(results: BenchResults): string {
  const recorded = results.connectionsPerClient;
  if (!recorded) return "rsmq 0.12.4 on its one connection, rsmq-next on its default `connections` (the number not recorded in this run)";
  const next = recorded["rsmq-next"];
  const plural = (count: number): string => `${count} connection${count === 1 ? "" : "s"}`;
  const bullmq = recorded.bullmq
    ? `; ${results.versions.bullmq ? `BullMQ ${results.versions.bullmq}` : "BullMQ"}'s Queue on ${plural(recorded.bullmq.queue)} and its Worker on ` +
      `${plural(recorded.bullmq.worker)} (counted by the server as each got ready)`
    : "";
  return `rsmq 0.12.4 on ${recorded.rsmq} connection, rsmq-next on ${plural(next)} (its default \`connections\`) per instance${bullmq}`;
}

function wireTable(results: BenchResults): Table {
  const calls = [...new Set(results.wireCost.map((row) => row.call))];
  const cell = (call: string, lib: string, pick: (row: BenchResults["wireCost"][number]) => string): string => {
    const row = results.wireCost.find((entry) => entry.call === call && entry.lib === lib);
    return row ? pick(row) : "–";
  };
  const commands = (row: BenchResults["wireCost"][number]): string => `${row.clientCommands.length}`;
  const calls_ = (row: BenchResults["wireCost"][number]): string => `${row.serverCalls} (${row.inScript} in Lua)`;
  return {
    title: "Wire cost per call",
    note:
      "Exact counts for one call in steady state (scripts cached): commands the client sent (MONITOR, by the client's address; " +
      "MULTI/EXEC count), round trips (a zero-delay proxy counts each time the client speaks after the server did), and all " +
      "calls the server ran (INFO commandstats delta), of which inside Lua scripts (MONITOR's lua lines). " +
      "* rsmq's realtime PUBLISH is sent after the reply and not awaited.",
    headers: [
      "Call",
      "rsmq cmds",
      "rsmq round trips",
      "rsmq server calls",
      "rsmq-next cmds",
      "rsmq-next round trips",
      "rsmq-next server calls",
    ],
    rows: calls.map((call) => [
      call,
      cell(call, "rsmq", commands),
      cell(call, "rsmq", (row) => `${row.roundTrips}${row.note ? "*" : ""}`),
      cell(call, "rsmq", calls_),
      cell(call, "rsmq-next", commands),
      cell(call, "rsmq-next", (row) => `${row.roundTrips}`),
      cell(call, "rsmq-next", calls_),
    ]),
  };
}

/** The idle rows of a run: a full run's (with its load record), or `--only idle`'s (without). */
type IdleRun = Pick<BenchResults, "idle" | "config"> & Partial<LoadRecord>;

function idleTable(results: IdleRun): Table {
  return {
    title: "Idle cost of one consumer on an empty queue",
    note:
      `Counted with MONITOR over a real ${results.config.idle.windowMs / 1000} s window after a ${results.config.idle.warmupMs / 1000} s warm-up ` +
      "(start-up commands left out), each subject on its own Redis, then × per hour and × 720 for 30 days; a scaled subject's rate is divided by its scale. " +
      (results.machine ? partLoadNote({ ...results, machine: results.machine }, [PART.idle]) : machineNow()),
    headers: ["Consumer", "Commands / hour", "Commands / 30 days", "Server calls / hour (incl. Lua)", "Server calls / 30 days", "How"],
    rows: results.idle.map((row) => [
      row.name,
      formatCount(row.clientPerHour),
      formatCount(row.clientPerHour * HOURS_IN_30_DAYS),
      formatCount(row.serverCallsPerHour),
      formatCount(row.serverCallsPerHour * HOURS_IN_30_DAYS),
      `${row.method}; ${row.clientCommands} cmds + ${row.inScript} in Lua in ${(row.windowMs / 1000).toFixed(1)} s`,
    ]),
  };
}

/** For a part run alone: the load it ran at, now. */
function machineNow(): string {
  return `Load average (1 min) at its end: ${loadavg()[0].toFixed(2)} on ${cpus().length} cores.`;
}

/** A MiB figure: 12.3 MiB. */
export function formatMiB(bytes: number): string {
  return Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : "n/a";
}

/** µs per message, client + Redis: "15.3 + 26.0". */
function cpuPair(cpu: { client: number; redis: number } | undefined): string {
  return cpu ? `${cpu.client.toFixed(1)} + ${cpu.redis.toFixed(1)}` : "–";
}

function goalsTable(results: BenchResults): Table {
  return {
    title: "Goals",
    note:
      "Each goal of the speed work, the figure this run measured (from the tables below: ratios of the medians, the same " +
      "figures the throughput table divides) and whether it is met, or by how much it falls short. Beside each throughput goal, what a message " +
      "cost in CPU in this run, client (the bench process) + Redis, in µs, for rsmq-next and for what it is held against: with " +
      "one client and one connection a message cannot go faster than 1 / (client + Redis) while they take turns (1 in flight), " +
      "nor than 1 / the larger of the two when they overlap (many in flight). Why a goal falls short is written under " +
      '"Goals: where they fall short, and why" below the results.',
    headers: [
      "Goal",
      "Target",
      "Measured",
      "Verdict",
      "rsmq-next CPU µs/msg (client + Redis)",
      "1 / (client + Redis) msg/s",
      "Held against: CPU µs/msg",
    ],
    rows: goalRows(results).map((row: GoalRow) => [
      row.goal,
      row.target,
      row.measured,
      row.verdict,
      cpuPair(row.cpu),
      row.cpu ? formatCount(1e6 / (row.cpu.client + row.cpu.redis)) : "–",
      row.against ? `${row.against.label}: ${cpuPair(row.against)}` : "–",
    ]),
  };
}

/** The compact goals table, for the README's headline block. */
export function goalsSummary(results: BenchResults): string[] {
  const lines = ["| Goal | Target | Measured | Verdict |", "| --- | ---: | ---: | ---: |"];
  for (const row of goalRows(results)) {
    lines.push(`| ${row.short} | ${row.target} | ${row.measured} | ${row.met === false ? `**${row.verdict}**` : row.verdict} |`);
  }
  return lines;
}

function ofFloor(results: BenchResults, row: ThroughputRow): string {
  if (row.kind === "floor") return "1.00 (floor)";
  const ratio = rowRatios(results, row).floor;
  return ratio === undefined ? "–" : ratio.toFixed(2);
}

function throughputTable(results: BenchResults): Table {
  const { repetitions, messagesC1, messagesC50 } = results.config.throughput;
  const floors = results.throughput.some((row) => row.kind === "floor");
  return {
    title: "Throughput and Redis CPU per message",
    note:
      `Median of ${repetitions} rounds (every case once per round, interleaved, after a warm-up round); ${messagesC1} messages at C=1, ` +
      `${messagesC50} at C=50, 100-byte bodies; ${connectionsWords(results)}. Redis CPU = delta of used_cpu_sys + used_cpu_user (INFO cpu) over the timed ` +
      "part / messages; client CPU = the bench process' own CPU (process.cpuUsage) over the same part / messages. " +
      "× rsmq is the median msg/s over the median msg/s of rsmq 0.12.4 doing the same at the same concurrency (the rows it " +
      'divides are in the table, and so for Redis CPU); "by round" is the lowest and highest of the same ratio taken within each ' +
      "round, the noise between rounds. " +
      (floors
        ? "The floor rows are a script that does nothing (EVALSHA of `return 1`, no keys) on the client the library instance talks " +
          "through, the most calls a second one connection gives; for them msg/s is calls a second and a message is one call. " +
          "\"of floor\" = library calls a second / the floor's calls a second, same library's client, same C (medians): a call " +
          "is one sendMessage, receiveMessage or deleteMessage, so send is 1 call per message and " +
          "receive+delete 2; it is left out (–) where one call carries many messages (Worker, batches) and for BullMQ. "
        : `"of floor": ${NOT_MEASURED} (the floor rows came later). `) +
      partLoadNote(results, [PART.throughput]),
    headers: [
      "Library",
      "What",
      "C",
      "msg/s",
      "× rsmq",
      "× rsmq by round",
      "of floor",
      "Redis CPU µs/msg",
      "Redis CPU × rsmq",
      "Client CPU µs/msg",
    ],
    rows: results.throughput.map((row) => {
      const ratios = rowRatios(results, row);
      const baseline = row.key === row.baseline;
      return [
        row.library,
        row.how,
        String(row.concurrency),
        formatCount(row.perSecond),
        baseline ? "1.00× (baseline)" : formatRatio(ratios.throughput),
        baseline ? "–" : formatRange(ratios.throughputByRound),
        ofFloor(results, row),
        row.cpuMicrosPerMessage.toFixed(1),
        baseline ? "1.00×" : formatRatio(ratios.cpu),
        row.clientCpuMicrosPerMessage.toFixed(1),
      ];
    }),
  };
}

function memoryTable(results: BenchResults): Table {
  const memory = results.memory;
  if (!memory) {
    return {
      title: "Memory of a Worker over many messages",
      note: `A Worker's heap and RSS over many messages: ${NOT_MEASURED}.`,
      headers: ["Measure", "start", "peak", "end", "growth per message"],
      rows: [["heap used, RSS", NOT_MEASURED, "–", "–", "–"]],
    };
  }
  const figure = (name: string, which: "heapUsed" | "rss"): Cell[] => [
    name,
    formatMiB(memory[which].start),
    formatMiB(memory[which].peak),
    formatMiB(memory[which].end),
    `${memory[which].bytesPerMessage.toFixed(2)} B/msg`,
  ];
  const gc = memory.gcForced ? "after a forced full GC (--expose-gc)" : "without a forced GC (the process lacked --expose-gc)";
  return {
    title: `Memory of a Worker over ${memory.messages.toLocaleString("en-US")} messages`,
    note:
      `One process (forked, so the figures are its own) holding a Worker (concurrency ${memory.concurrency}, no-op handler, the ` +
      `library's defaults otherwise) and a producer (a second RedisSMQ instance) that keeps at most ${memory.ahead.toLocaleString("en-US")} messages ` +
      `sent and not yet handled, so Redis holds a few thousand at a time. ${memory.messages.toLocaleString("en-US")} messages in ` +
      `${(memory.elapsedMs / 1000).toFixed(1)} s (${formatCount(memory.perSecond)} msg/s); process.memoryUsage() sampled ${gc} at start and ` +
      `every ${(memory.samples[1]?.handled ?? memory.messages).toLocaleString("en-US")} messages (${memory.samples.length} samples). Growth per ` +
      `message = the least-squares slope of the samples over messages handled, from message ${memory.slopeFrom.toLocaleString("en-US")} on ` +
      `(start-up and JIT left out). ${partLoadNote(results, [PART.memory])}`,
    headers: ["Measure", "start", "peak", "end", "growth per message"],
    rows: [figure(`heap used${memory.gcForced ? " after GC" : ""}`, "heapUsed"), figure("RSS", "rss")],
  };
}

function networkTable(results: BenchResults): Table {
  const { delayMs, iterations, operations } = results.network;
  const ops = [...new Set(operations.map((row) => row.operation))];
  const get = (operation: string, lib: string) => operations.find((row) => row.operation === operation && row.lib === lib)!.latency;
  return {
    title: `Per-call latency with ${delayMs} ms added each way`,
    note:
      `Both libraries through a TCP proxy in bench/ (bench/latency-proxy.ts) that holds every chunk at least ${delayMs} ms in each ` +
      `direction; the PING row is one bare round trip (2 × ${delayMs} ms plus the proxy's own overhead). Concurrency 1, ` +
      `${iterations} calls each, libraries alternating call by call. ${partLoadNote(results, [PART.network])}`,
    headers: ["Call", "rsmq p50", "rsmq p99", "rsmq-next p50", "rsmq-next p99", "p50 × rsmq"],
    rows: ops.map((operation) => {
      const old = get(operation, "rsmq");
      const next = get(operation, "rsmq-next");
      return [operation, formatMs(old.p50), formatMs(old.p99), formatMs(next.p50), formatMs(next.p99), formatRatio(next.p50 / old.p50)];
    }),
  };
}

function deliveryTables(results: BenchResults): Table[] {
  const row = (entry: BenchResults["delivery"][number]): Cell[] => [
    entry.consumer,
    entry.producer,
    formatMs(entry.latency.p50),
    formatMs(entry.latency.p99),
    formatMs(entry.latency.max),
    String(entry.latency.n),
    entry.method,
  ];
  const delay = results.config.delivery.delaySeconds;
  return [
    {
      title: "Delivery latency to an idle consumer (send -> handler start)",
      note:
        "From the producer calling sendMessage (its wall clock, written into the body) to the handler starting. Consumers are idle " +
        "when the message is sent: the Worker asleep at its defaults (30 s cap), pollers at a random point of their poll cycle. " +
        partLoadNote(results, [PART.workerDelivery, PART.idle]),
      headers: ["Consumer", "Producer", "p50", "p99", "max", "n", "How"],
      rows: results.delivery.filter((entry) => entry.delaySeconds === 0).map(row),
    },
    {
      title: `Lateness of delayed messages (delay ${delay} s)`,
      note:
        "Handler start minus the moment the message became due: its id's server TIME (ms) + delay. " +
        partLoadNote(results, [PART.workerDelivery, PART.idle]),
      headers: ["Consumer", "Producer", "p50", "p99", "max", "n", "How"],
      rows: results.delivery.filter((entry) => entry.delaySeconds > 0).map(row),
    },
  ];
}

export function tables(results: BenchResults): Table[] {
  return [
    goalsTable(results),
    wireTable(results),
    idleTable(results),
    throughputTable(results),
    networkTable(results),
    ...deliveryTables(results),
    memoryTable(results),
  ];
}

function widths(table: Table): number[] {
  return table.headers.map((header, i) => Math.max(header.length, ...table.rows.map((row) => (row[i] ?? "").length)));
}

/** Plain-text tables for the terminal (the long "How" column is left to the JSON and Markdown). */
export function consoleReport(results: BenchResults): string {
  const out: string[] = [];
  for (const full of tables(results)) {
    const keep = full.headers.map((header) => header !== "How");
    const table: Table = {
      ...full,
      headers: full.headers.filter((_, i) => keep[i]),
      rows: full.rows.map((row) => row.filter((_, i) => keep[i])),
    };
    const width = widths(table);
    const line = (cells: Cell[]): string => cells.map((cell, i) => (i === 0 ? cell.padEnd(width[i]) : cell.padStart(width[i]))).join("  ");
    out.push("", pc.bold(table.title), line(table.headers), width.map((w) => "-".repeat(w)).join("  "), ...table.rows.map(line));
  }
  return out.join("\n") + "\n";
}

/** Columns of words (left-aligned in Markdown); the others hold numbers. */
const TEXT_COLUMNS = new Set(["Library", "What", "Producer", "How", "Held against: CPU µs/msg"]);

export function markdownReport(results: BenchResults): string {
  return tables(results).map(markdownTable).join("\n");
}

/** `--only idle`: the idle table alone, as Markdown. */
export function idleMarkdown(results: IdleRun): string {
  return markdownTable(idleTable(results));
}

function markdownTable(table: Table): string {
  const out = [`#### ${table.title}`, "", table.note, ""];
  const text = (header: string, i: number): boolean => i === 0 || TEXT_COLUMNS.has(header);
  out.push(`| ${table.headers.join(" | ")} |`, `|${table.headers.map((header, i) => (text(header, i) ? " --- " : " ---: ")).join("|")}|`);
  for (const row of table.rows) out.push(`| ${row.map((cell) => cell.replace(/\|/g, "\\|")).join(" | ")} |`);
  out.push("");
  return out.join("\n");
}

/** The headline ratios the issue asks to quote. */
export function headline(results: BenchResults): string[] {
  const tp = (key: string) => results.throughput.find((row) => row.key === key);
  const lines: string[] = [];
  for (const c of [1, 50]) {
    const send = tp(`rsmq-next send C=${c}`);
    const receive = tp(`rsmq-next receive+delete C=${c}`);
    const worker = tp(`rsmq-next Worker C=${c}`);
    if (send && receive && worker) {
      const [sendRatios, receiveRatios, workerRatios] = [send, receive, worker].map((row) => rowRatios(results, row));
      const floor =
        sendRatios.floor === undefined
          ? ""
          : `; of floor send ${sendRatios.floor.toFixed(2)}, receive+delete ${receiveRatios.floor?.toFixed(2)}`;
      lines.push(
        `throughput C=${c} vs rsmq 0.12.4 (ratios of the medians): send ${formatRatio(sendRatios.throughput)} ` +
          `(${formatRange(sendRatios.throughputByRound)} by round), receive+delete ${formatRatio(receiveRatios.throughput)}, ` +
          `Worker ${formatRatio(workerRatios.throughput)}; Redis CPU/msg send ${formatRatio(sendRatios.cpu)}, receive+delete ${formatRatio(receiveRatios.cpu)}${floor}`,
      );
    }
  }
  const idle = (prefix: string) => results.idle.find((row) => row.name.startsWith(prefix));
  const poll = idle("rsmq 0.12.4, polled");
  const rsmqWorker = idle("rsmq 0.12.4 + rsmq-worker");
  const worker = idle("rsmq-next Worker, defaults") ?? idle("rsmq-next Worker");
  if (poll && rsmqWorker && worker) {
    lines.push(
      `idle commands/hour: rsmq polled 100 ms ${formatCount(poll.clientPerHour)}, rsmq-worker ${formatCount(rsmqWorker.clientPerHour)}, ` +
        `Worker ${formatCount(worker.clientPerHour)}; rsmq polled / Worker ${formatRatio(poll.clientPerHour / worker.clientPerHour)}, ` +
        `rsmq-worker / Worker ${formatRatio(rsmqWorker.clientPerHour / worker.clientPerHour)}`,
    );
  }
  const p99 = results.delivery
    .filter((entry) => entry.delaySeconds === 0)
    .map((entry) => `${entry.consumer} <- ${entry.producer}: ${formatMs(entry.latency.p99)}`);
  lines.push(`delivery p99: ${p99.join("; ")}`);
  const goals = goalRows(results);
  const count = (pick: (goal: GoalRow) => boolean): number => goals.filter(pick).length;
  lines.push(
    `goals (see the Goals table): ${count((goal) => goal.met === true)} met, ${count((goal) => goal.met === false)} short, ` +
      `${count((goal) => goal.met === undefined)} ${NOT_MEASURED}`,
  );
  return lines;
}

const COLORS = { primary: "#2f6fdf", secondary: "#9fbdf0", poller: "#d9822b", pollerLight: "#f0c08f" };

export function idleChart(results: BenchResults): string {
  return renderBarChart({
    title: "Idle cost: Redis commands per hour, one consumer, empty queue",
    subtitle: `Measured over a ${results.config.idle.windowMs / 1000} s window with MONITOR (${results.date.slice(0, 10)}, ${results.mode} run); 30 days = × 720`,
    unit: "per hour",
    series: [
      { name: "commands sent by the client", color: COLORS.primary },
      { name: "server calls incl. inside Lua", color: COLORS.secondary },
    ],
    rows: results.idle.map((row) => ({ label: row.name, values: [row.clientPerHour, row.serverCallsPerHour] })),
    format: (value) => `${formatCount(value)}/h · ${formatCompact(value * HOURS_IN_30_DAYS)} / 30 days`,
  });
}

/** A short chart label for a delivery row. */
function deliveryLabel(entry: BenchResults["delivery"][number]): string {
  const consumer = entry.consumer.startsWith("rsmq-next Worker")
    ? `Worker ← ${entry.producer.replace(", realtime", " (realtime)")}`
    : entry.consumer.replace("rsmq-worker [0, 1, 5, 10] s", "rsmq-worker defaults");
  return entry.delaySeconds > 0 ? `delayed ${entry.delaySeconds} s: ${consumer}` : consumer;
}

export function deliveryChart(results: BenchResults): string {
  const delay = results.config.delivery.delaySeconds;
  const rows = [...results.delivery].sort((a, b) => a.delaySeconds - b.delaySeconds);
  return renderBarChart({
    title: "Delivery latency to an idle consumer, and lateness of delayed messages",
    subtitle: `send -> handler start; delayed (${delay} s): due time -> handler start. ${results.date.slice(0, 10)}, ${results.mode} run`,
    unit: "milliseconds",
    series: [
      { name: "p50", color: COLORS.primary },
      { name: "p99", color: COLORS.secondary },
    ],
    rows: rows.map((entry) => ({ label: deliveryLabel(entry), values: [entry.latency.p50, entry.latency.p99] })),
    format: formatMs,
  });
}

/** Writes <date>.json, <date>.md, idle.svg and delivery.svg into `dir`; returns the paths. */
export function writeResults(results: BenchResults, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const day = results.date.slice(0, 10);
  const files: Array<[string, string]> = [
    [`${day}.json`, JSON.stringify(results, null, 2) + "\n"],
    [`${day}.md`, markdownReport(results)],
    ["idle.svg", idleChart(results)],
    ["delivery.svg", deliveryChart(results)],
  ];
  return files.map(([name, text]) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  });
}
