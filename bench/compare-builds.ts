/**
 * Two builds of the package side by side, for a change that must not make the hot paths slower
 * (`node build/bench/compare-builds.js --before <dir> [--after <dir>] [--rounds 7]`, each dir a
 * checkout with `dist/` built; `--after` is this one by default). Each case (send, receive+delete,
 * the loop on the combined deleteAndReceive call, and a Worker, at 1 and 50 in flight) runs once per
 * build per round, each run in a process of its own on one fresh `redis-server`, the builds taking
 * turns at going first. The table gives the medians and the after/before ratios of messages per
 * second, client CPU and server CPU per message; CPU per message is steadier than throughput on a
 * shared machine. A build without the combined call skips its case ("–" in its columns).
 */
import { execFile } from "child_process";
import { resolve } from "path";
import { promisify } from "util";
import { Command } from "commander";
import { median } from "./stats";
import { startServers } from "./redis";
import type { Target } from "./redis";

const run = promisify(execFile);

/** One case: what is measured, how many in flight, and how many messages. */
export interface CompareCase {
  /** "combined": receiveMessage once, then deleteAndReceive per message (builds that have the call). */
  readonly kind: "send" | "receive+delete" | "combined" | "worker";
  readonly concurrency: number;
  readonly messages: number;
}

export const FULL_CASES: readonly CompareCase[] = [
  { kind: "send", concurrency: 1, messages: 5000 },
  { kind: "send", concurrency: 50, messages: 20000 },
  { kind: "receive+delete", concurrency: 1, messages: 3000 },
  { kind: "receive+delete", concurrency: 50, messages: 20000 },
  { kind: "combined", concurrency: 1, messages: 3000 },
  { kind: "combined", concurrency: 50, messages: 20000 },
  { kind: "worker", concurrency: 1, messages: 3000 },
  { kind: "worker", concurrency: 50, messages: 20000 },
];

/** What one run measured, per message. */
export interface RunFigures {
  readonly perSecond: number;
  readonly clientMicros: number;
  readonly serverMicros: number;
}

/** What the child prints for a case its build cannot run (the combined call on a build without it). */
export interface Skipped {
  readonly skipped: string;
}

/** One row of the table: the medians of each build (undefined where the build skipped the case), and after/before. */
export interface CompareRow {
  readonly label: string;
  readonly before?: RunFigures;
  readonly after?: RunFigures;
}

/** Runs every case `rounds` times per build; `dirs` are the two checkouts. */
export async function compareBuilds(
  dirs: { before: string; after: string },
  cases: readonly CompareCase[],
  rounds: number,
): Promise<CompareRow[]> {
  const servers = await startServers(1);
  try {
    const samples = cases.map(() => ({ before: [] as RunFigures[], after: [] as RunFigures[] }));
    // A build that skipped a case once skips it every round: it is not run again.
    const skipped = new Set<string>();
    for (let round = 0; round < rounds; round += 1) {
      for (const [index, compared] of cases.entries()) {
        const order = round % 2 === 0 ? (["before", "after"] as const) : (["after", "before"] as const);
        for (const build of order) {
          if (skipped.has(`${build} ${index}`)) continue;
          const figures = await runOnce(dirs[build], servers.targets[0], compared);
          if ("skipped" in figures) skipped.add(`${build} ${index}`);
          else samples[index][build].push(figures);
        }
      }
    }
    return cases.map((compared, index) => ({
      label: `${compared.kind} C=${compared.concurrency}`,
      before: medians(samples[index].before),
      after: medians(samples[index].after),
    }));
  } finally {
    await servers.close();
  }
}

function medians(runs: RunFigures[]): RunFigures | undefined {
  if (runs.length === 0) return undefined;
  return {
    perSecond: median(runs.map((figures) => figures.perSecond)),
    clientMicros: median(runs.map((figures) => figures.clientMicros)),
    serverMicros: median(runs.map((figures) => figures.serverMicros)),
  };
}

/** One case on one build, in a child process of its own (compare-builds-child.ts). */
async function runOnce(dir: string, target: Target, compared: CompareCase): Promise<RunFigures | Skipped> {
  const child = resolve(__dirname, "compare-builds-child.js");
  const entry = resolve(dir, "dist/index.js");
  const { stdout } = await run(
    process.execPath,
    [child, entry, target.url, compared.kind, String(compared.concurrency), String(compared.messages)],
    {
      timeout: 120_000,
    },
  );
  return JSON.parse(stdout) as RunFigures | Skipped;
}

/** The rows as a Markdown table. */
export function compareTable(rows: readonly CompareRow[]): string {
  const absent = { perSecond: Number.NaN, clientMicros: Number.NaN, serverMicros: Number.NaN };
  const figure = (value: number, digits: number): string => (Number.isFinite(value) ? value.toFixed(digits) : "–");
  const ratio = (after: number, before: number): string => figure(after / before, 3);
  const lines = [
    "| case | msg/s before | after | ratio | client µs/msg before | after | ratio | server µs/msg before | after | ratio |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const row of rows) {
    const [before, after] = [row.before ?? absent, row.after ?? absent];
    lines.push(
      `| ${row.label} | ${figure(before.perSecond, 0)} | ${figure(after.perSecond, 0)} | ${ratio(after.perSecond, before.perSecond)} | ` +
        `${figure(before.clientMicros, 1)} | ${figure(after.clientMicros, 1)} | ${ratio(after.clientMicros, before.clientMicros)} | ` +
        `${figure(before.serverMicros, 1)} | ${figure(after.serverMicros, 1)} | ${ratio(after.serverMicros, before.serverMicros)} |`,
    );
  }
  return lines.join("\n");
}

if (require.main === module) {
  const options = new Command("compare-builds")
    .requiredOption("--before <dir>", "a checkout of the build to compare against, with dist/ built")
    .option("--after <dir>", "the build to measure (default: this checkout)", resolve(__dirname, "../.."))
    .option("--rounds <n>", "rounds per case and build", "7")
    .parse()
    .opts<{ before: string; after: string; rounds: string }>();
  compareBuilds({ before: options.before, after: options.after }, FULL_CASES, Number(options.rounds)).then(
    (rows) => console.log(compareTable(rows)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
