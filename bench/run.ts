/**
 * `npm run bench` / `npm run bench:quick`: starts its own Redis servers on free ports (or uses
 * REDIS_URL), runs the suite, prints the tables, and writes the JSON record, a Markdown copy of
 * the tables and the SVG charts under bench/results/ (quick runs under bench/results/quick/).
 * A full run written there also rewrites the generated blocks of bench/README.md (the last run's
 * duration, the connections table, every table) and README.md (the headline table); so does
 * `--from` over a full run's JSON in bench/results/. `--only connections` runs the `connections`
 * part alone (bench/connections.ts); `--only idle` the idle cost (bench/idle-cost.ts), every
 * subject side by side at the chosen run's window; `--only telemetry` what telemetry costs
 * (bench/telemetry.ts); `--only purge` a purge beside a DEL of the same queue (bench/purge.ts);
 * `--only sendbatch` batch sends beside single sends (bench/send-batch.ts); `--only batch-bound` what
 * one batch script call at the byte bound holds Redis (bench/batch-bound.ts); `--only controls` what a
 * rate limit or a concurrency limit that does not bind costs a Worker (bench/controls-cost.ts).
 * None of them rewrites the READMEs.
 */
import { Command } from "commander";
import { mkdirSync, readFileSync, writeFileSync } from "fs";
import { dirname, join, relative, resolve } from "path";
import pc = require("picocolors");
import { CONFIGS } from "./config";
import type { BenchConfig } from "./config";
import { connectionsTable, measureConnections } from "./connections";
import type { ConnectionsResult } from "./connections";
import { PART, recordPart } from "./machine-load";
import { startServers } from "./redis";
import type { Target } from "./redis";
import {
  CONNECTIONS_BLOCK,
  DURATION_BLOCK,
  HEADLINE_BLOCK,
  RESULTS_BLOCK,
  connectionsBlock,
  durationBlock,
  headlineBlock,
  markersOf,
  resultsBlock,
  updateBlock,
} from "./readme-blocks";
import type { RunRecord } from "./readme-blocks";
import { measureIdle } from "./idle-cost";
import type { IdleCost } from "./idle-cost";
import { consoleReport, headline, idleMarkdown, writeResults } from "./report";
import { idleSubjects, runSuite } from "./suite";
import { measureTelemetry, telemetryTable } from "./telemetry";
import { measureControlsCost, controlsTable } from "./controls-cost";
import { measureFair, fairTable } from "./fair";
import { measurePurge, purgeTable } from "./purge";
import { measureSendBatch, sendBatchTable } from "./send-batch";
import { batchBoundTable, measureBatchBound } from "./batch-bound";

const ROOT = join(__dirname, "..", "..");
const RESULTS_DIR = join(ROOT, "bench", "results");

async function main(): Promise<void> {
  const program = new Command()
    .name("bench")
    .description("rsmq-next side by side with rsmq 0.12.4 (and BullMQ) in one run")
    .option("--quick", "a reduced run for a smoke check (under a minute; numbers not for quoting)")
    .option("--out <dir>", "where to write results (default bench/results, or bench/results/quick with --quick)")
    .option("--from <json>", "measure nothing: print and re-render the tables and charts of an earlier run")
    .option(
      "--only <part>",
      "run one part alone: `connections` (why the default of the connections option), `idle` (the idle cost), `telemetry` (what telemetry costs), `purge` (a purge beside a DEL), `sendbatch` (batch sends beside single sends), `batch-bound` (one batch call at the byte bound), `controls` (a Worker under a rate limit or a concurrency limit that does not bind), `fair` (a lone flood's drain and single sends, with a tenant beside without)",
    )
    .parse();
  const options = program.opts<{ quick?: boolean; out?: string; from?: string; only?: string }>();
  if (options.from) {
    const results = JSON.parse(readFileSync(options.from, "utf8")) as RunRecord;
    report(results, options.out ?? dirname(options.from));
    return;
  }
  const config = CONFIGS[options.quick ? "quick" : "full"];
  const out = options.out ?? (options.quick ? join(RESULTS_DIR, "quick") : RESULTS_DIR);
  if (options.only !== undefined && !ONLY_PARTS.includes(options.only))
    throw new Error(`--only takes one of ${ONLY_PARTS.map((part) => `\`${part}\``).join(", ")}, got \`${options.only}\``);
  if (options.only === "connections") return onlyConnections(config, out);
  if (options.only === "telemetry") return onlyTelemetry(config, out);
  if (options.only === "idle") return onlyIdle(config, out);
  if (options.only === "purge") return onlyPurge(config, out);
  if (options.only === "sendbatch") return onlySendBatch(config, out);
  if (options.only === "batch-bound") return onlyBatchBound(config, out);
  if (options.only === "controls") return onlyControls(config, out);
  if (options.only === "fair") return onlyFair(config, out);

  // One server for the main measurements, one per idle subject, one for the pollers.
  const idleCount = idleSubjects(config).length;
  const servers = await startServers(idleCount + 2);
  const started = Date.now();
  const log = (line: string): void => console.log(pc.dim(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`));
  try {
    log(`${config.mode} run on ${servers.separate ? `${servers.targets.length} redis-servers on free ports` : process.env.REDIS_URL}`);
    const results = await runSuite(
      config,
      {
        main: servers.targets[0],
        idle: servers.targets.slice(1, 1 + idleCount),
        pollers: servers.targets[1 + idleCount],
        separate: servers.separate,
      },
      log,
    );
    const parts = results.parts ?? [];
    const connections = await recordPart(parts, PART.connections, () => connectionsPart(config, servers.targets[0], log));
    // The whole run, connections part included, as `npm run bench` takes it.
    report({ ...results, parts, durationMs: Date.now() - started, connections }, out);
    log("done");
  } finally {
    await servers.close();
  }
}

function connectionsPart(config: BenchConfig, target: Target, log: (line: string) => void): Promise<ConnectionsResult> {
  return measureConnections(target, { messages: config.throughput.messagesC50, rounds: config.throughput.repetitions }, log);
}

/** `--only connections`: its table on stdout and in <out>/connections.md, its record in connections.json. */
async function onlyConnections(config: BenchConfig, out: string): Promise<void> {
  const servers = await startServers(1);
  const target = servers.targets[0];
  try {
    const started = Date.now();
    const log = (line: string): void => console.log(pc.dim(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`));
    const result = await connectionsPart(config, target, log);
    const table = connectionsTable(result);
    console.log(`\n${table}\n`);
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "connections.md"), `${table}\n`);
    writeFileSync(join(out, "connections.json"), `${JSON.stringify(result, null, 2)}\n`);
    console.log(`wrote ${relative(process.cwd(), join(out, "connections.md"))} and connections.json`);
  } finally {
    await servers.close();
  }
}

/** The parts `--only` runs alone. */
const ONLY_PARTS = ["connections", "idle", "telemetry", "purge", "sendbatch", "batch-bound", "controls", "fair"];

/** `--only fair`: its table on stdout and in <out>/fair.md, its record in fair.json. */
async function onlyFair(config: BenchConfig, out: string): Promise<void> {
  const servers = await startServers(1);
  try {
    const started = Date.now();
    const log = (line: string): void => console.log(pc.dim(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`));
    const options = { messages: config.throughput.messagesC50, rounds: config.throughput.repetitions };
    const result = await measureFair(servers.targets[0], options, log);
    const table = fairTable(result);
    console.log(`\n${table}\n`);
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "fair.md"), `${table}\n`);
    writeFileSync(join(out, "fair.json"), `${JSON.stringify(result, null, 2)}\n`);
    console.log(`wrote ${relative(process.cwd(), join(out, "fair.md"))} and fair.json`);
  } finally {
    await servers.close();
  }
}

/** `--only controls`: its table on stdout and in <out>/controls.md, its record in controls.json. */
async function onlyControls(config: BenchConfig, out: string): Promise<void> {
  const servers = await startServers(1);
  try {
    const started = Date.now();
    const log = (line: string): void => console.log(pc.dim(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`));
    const options = { messages: config.throughput.messagesC50, rounds: config.throughput.repetitions };
    const result = await measureControlsCost(servers.targets[0], options, log);
    const table = controlsTable(result);
    console.log(`\n${table}\n`);
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "controls.md"), `${table}\n`);
    writeFileSync(join(out, "controls.json"), `${JSON.stringify(result, null, 2)}\n`);
    console.log(`wrote ${relative(process.cwd(), join(out, "controls.md"))} and controls.json`);
  } finally {
    await servers.close();
  }
}

/** `--only telemetry`: its table on stdout and in <out>/telemetry.md, its record in telemetry.json. */
async function onlyTelemetry(config: BenchConfig, out: string): Promise<void> {
  const servers = await startServers(1);
  try {
    const started = Date.now();
    const log = (line: string): void => console.log(pc.dim(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`));
    const options = { messages: config.throughput.messagesC50, rounds: config.throughput.repetitions };
    const result = await measureTelemetry(servers.targets[0], options, log);
    const table = telemetryTable(result);
    console.log(`\n${table}\n`);
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "telemetry.md"), `${table}\n`);
    writeFileSync(join(out, "telemetry.json"), `${JSON.stringify(result, null, 2)}\n`);
    console.log(`wrote ${relative(process.cwd(), join(out, "telemetry.md"))} and telemetry.json`);
  } finally {
    await servers.close();
  }
}

/** `--only purge`: its table on stdout and in <out>/purge.md, its record in purge.json. */
async function onlyPurge(config: BenchConfig, out: string): Promise<void> {
  const servers = await startServers(1);
  try {
    const started = Date.now();
    const log = (line: string): void => console.log(pc.dim(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`));
    const result = await measurePurge(servers.targets[0], config.purge, log);
    const table = purgeTable(result);
    console.log(`\n${table}\n`);
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "purge.md"), `${table}\n`);
    writeFileSync(join(out, "purge.json"), `${JSON.stringify(result, null, 2)}\n`);
    console.log(`wrote ${relative(process.cwd(), join(out, "purge.md"))} and purge.json`);
  } finally {
    await servers.close();
  }
}

/** `--only idle`: the idle table on stdout and in <out>/idle-only.md, its rows in idle-only.json. */
async function onlyIdle(config: BenchConfig, out: string): Promise<void> {
  const subjects = idleSubjects(config);
  const servers = await startServers(subjects.length);
  try {
    console.log(pc.dim(`idle cost: ${subjects.length} subjects, a ${config.idle.windowMs / 1000} s window each (${config.mode} run)`));
    const measure = (index: number): Promise<IdleCost> => measureIdle(subjects[index], servers.targets[index], config.idle);
    const idle: IdleCost[] = [];
    if (servers.separate) idle.push(...(await Promise.all(subjects.map((_, index) => measure(index)))));
    else for (let index = 0; index < subjects.length; index++) idle.push(await measure(index));
    const table = idleMarkdown({ idle, config });
    console.log(`\n${table}`);
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "idle-only.md"), table);
    writeFileSync(join(out, "idle-only.json"), `${JSON.stringify({ date: new Date().toISOString(), mode: config.mode, idle }, null, 2)}\n`);
    console.log(`wrote ${relative(process.cwd(), join(out, "idle-only.md"))} and idle-only.json`);
  } finally {
    await servers.close();
  }
}

function report(results: RunRecord, out: string): void {
  process.stdout.write(consoleReport(results));
  if (results.connections) console.log(`\n${connectionsBlock(results)}`);
  console.log("");
  for (const line of headline(results)) console.log(pc.bold(line));
  console.log("");
  for (const path of writeResults(results, out)) console.log(`wrote ${relative(process.cwd(), path)}`);
  updateReadmes(results, out);
}

/** Only a full run's figures, kept where the READMEs' charts and links point, are quoted. */
function updateReadmes(results: RunRecord, out: string): void {
  if (results.mode !== "full" || resolve(out) !== resolve(RESULTS_DIR)) {
    console.log(`READMEs left alone (they quote a full run written to ${relative(process.cwd(), RESULTS_DIR) || "."})`);
    return;
  }
  const blocks: Array<[string, string, string]> = [
    [join(ROOT, "bench", "README.md"), DURATION_BLOCK, durationBlock(results)],
    [join(ROOT, "bench", "README.md"), CONNECTIONS_BLOCK, connectionsBlock(results)],
    [join(ROOT, "bench", "README.md"), RESULTS_BLOCK, resultsBlock(results)],
    [join(ROOT, "README.md"), HEADLINE_BLOCK, headlineBlock(results)],
  ];
  for (const [path, name, content] of blocks) {
    const outcome = updateBlock(path, name, content);
    const where = relative(process.cwd(), path);
    console.log(
      outcome === "no markers" || outcome === "no file"
        ? `${where}: ${outcome} (${markersOf(name)}), left alone`
        : `${where}: ${name} block ${outcome}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

/** `--only sendbatch`: its table on stdout and in <out>/sendbatch.md, its record in sendbatch.json. */
async function onlySendBatch(config: BenchConfig, out: string): Promise<void> {
  const servers = await startServers(1);
  try {
    const started = Date.now();
    const log = (line: string): void => console.log(pc.dim(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`));
    const result = await measureSendBatch(servers.targets[0], config.sendBatch, log);
    const table = sendBatchTable(result);
    console.log(`\n${table}\n`);
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "sendbatch.md"), `${table}\n`);
    writeFileSync(join(out, "sendbatch.json"), `${JSON.stringify(result, null, 2)}\n`);
    console.log(`wrote ${relative(process.cwd(), join(out, "sendbatch.md"))} and sendbatch.json`);
  } finally {
    await servers.close();
  }
}

/** `--only batch-bound`: its table on stdout and in <out>/batch-bound.md, its record in batch-bound.json. */
async function onlyBatchBound(config: BenchConfig, out: string): Promise<void> {
  const servers = await startServers(1);
  try {
    const started = Date.now();
    const log = (line: string): void => console.log(pc.dim(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`));
    const result = await measureBatchBound(servers.targets[0], config.batchBound, log);
    const table = batchBoundTable(result);
    console.log(`\n${table}\n`);
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "batch-bound.md"), `${table}\n`);
    writeFileSync(join(out, "batch-bound.json"), `${JSON.stringify(result, null, 2)}\n`);
    console.log(`wrote ${relative(process.cwd(), join(out, "batch-bound.md"))} and batch-bound.json`);
  } finally {
    await servers.close();
  }
}
