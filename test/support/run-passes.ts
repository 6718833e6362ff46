/**
 * `npm test`: the mocha passes, in three tracks at the same time (see `tracks`): the single-server
 * pass without the suites that spend their time in the processes they start; beside it those
 * suites (the command line's, test/cli/, and the fleet's Workers in several processes,
 * test/fleet/; on one server too), then the passes through clients passed in (ioredis 6, node-redis
 * 6 in RESP3); and the cluster pass, then the cluster suites through a node-redis 6 cluster client.
 * Each pass starts servers of its own on free ports (see server.ts), so none sees another's
 * commands, counters, CONFIG SET or restarts; and most of each pass is spent waiting on child
 * processes and servers, not computing, so on 2 cores the tracks overlap well.
 *
 * The single-server pass prints as it runs; the other passes' output is held and printed whole
 * after it, so each pass's lines (and its "N passing" summary, which .ci/run adds up) stay intact.
 * With REDIS_URL or TEST_REDIS the passes would share one server, so they run one after the other,
 * as they do with RSMQ_TEST_SERIAL=1. Arguments after `npm test --` go to every pass.
 *
 * Each pass runs the suites whose `runsOn(...)` line names its target (suite-targets.ts); a suite
 * without one fails the run before any pass starts. `--only <pass>` runs that one pass alone
 * (`npm run test:cluster`, `npm run test:ioredis`, `npm test -- --only noderedis6-resp3`). A pass
 * that exits 0 but ran no test fails the run, with the reason (pass-summary.ts). A pass still
 * running after PASS_LIMIT_MS is killed and fails the run, naming the test it was in and what it
 * was waiting on (pass-report.ts), instead of holding CI until its own time limit.
 */
import { spawn } from "child_process";
import type { ChildProcess } from "child_process";
import * as path from "path";
import { emptyPassReason, readSummary } from "./pass-summary";
import { describeReport, reportFileFor, requestReport } from "./pass-report";
import { killTree } from "./process-tree";
import { selectSuites } from "./suite-targets";
import type { TestClientKind } from "./test-clients";

const root = path.resolve(__dirname, "../../..");
const mocha = path.join(root, "node_modules/mocha/bin/mocha.js");
const { only, extra } = parseArguments(process.argv.slice(2));

interface Pass {
  /** As an empty pass is named in the run's failure. */
  name: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

// The files of each pass, from each suite's runsOn(...) line.
const suites = selectSuites(root);
if (suites.problems.length > 0) {
  process.stderr.write(
    `\n  Every suite must declare its targets (test/support/targets.ts):\n${suites.problems.map((problem) => `    ${problem}\n`).join("")}\n`,
  );
  process.exit(1);
}

// One .mocharc.json for every pass. The cluster and client passes give each test and hook 30 s,
// not its 20 s: their set-ups (a cluster's nodes, a client per test) take longer.
const slowerTarget = ["--config", ".mocharc.json", "--timeout", "30000"];
const single: Pass = { name: "single-server", args: ["--config", ".mocharc.json", ...suites.files.single, ...extra], env: process.env };
const cluster: Pass = {
  name: "cluster",
  args: [...slowerTarget, ...suites.files.cluster, ...extra],
  env: { ...process.env, RSMQ_TEST_TARGET: "cluster" },
};
/** A pass of the suites that run with a client passed in (`client`), through a client of `kind`. */
const clientPass = (kind: TestClientKind): Pass => ({
  name: kind,
  args: [...slowerTarget, ...suites.files.client, ...extra],
  env: { ...process.env, RSMQ_TEST_CLIENT: kind },
});
/** The suites that run both on the cluster and with a client passed in, through a cluster client of `kind`. */
const clusterClientPass = (kind: TestClientKind): Pass => ({
  name: `cluster-${kind}`,
  args: [...slowerTarget, ...suites.files.cluster.filter((file) => suites.files.client.includes(file)), ...extra],
  env: { ...process.env, RSMQ_TEST_TARGET: "cluster", RSMQ_TEST_CLIENT: kind },
});
// Side by side, the single-server pass runs as two: the suites that mostly wait on processes apart.
const runsProcesses = (file: string): boolean => /[\\/]test[\\/](cli|fleet)[\\/]/.test(file);
const singleWithoutCommandLine: Pass = {
  ...single,
  args: ["--config", ".mocharc.json", ...suites.files.single.filter((file) => !runsProcesses(file)), ...extra],
};
// A test there runs a chain of child processes one after the other (ten CLI commands, each started
// afresh and bounded by itself, see cli.ts), which on a saturated 2-core machine takes more than
// the 20 s meant for a test in one process: 60 s each.
const processes: Pass = {
  name: "processes (single-server)",
  args: ["--config", ".mocharc.json", "--timeout", "60000", ...suites.files.single.filter(runsProcesses), ...extra],
  env: process.env,
};
/** The passes of clients passed in: the newest of each library, on one server and on the cluster. */
const clientPasses: Pass[] = [clientPass("ioredis6"), clientPass("noderedis6-resp3"), clusterClientPass("noderedis6-resp3")];
/** Every pass by the name `--only` takes (`ioredis` is the ioredis 6 client pass). */
const passes: Record<string, Pass> = {
  single,
  cluster,
  ioredis: clientPasses[0],
  ...Object.fromEntries(clientPasses.map((pass) => [pass.name, pass])),
};

/**
 * The tracks `npm test` runs at the same time, each its passes one after the other. The first is
 * printed as it runs; the others are held and printed whole after it, in this order.
 */
const tracks: Pass[][] = [[singleWithoutCommandLine], [processes, clientPasses[0], clientPasses[1]], [cluster, clientPasses[2]]];

/** `--only <pass>` (one pass alone), and the arguments for mocha. */
function parseArguments(args: string[]): { only?: string; extra: string[] } {
  if (args[0] !== "--only") return { extra: args };
  return { only: args[1] ?? "", extra: args.slice(2) };
}

/**
 * Runs one pass; with `held`, its output is collected and returned instead of printed (without,
 * it is printed as it comes and collected too). A pass that exits 0 having run no test gets code
 * 1 and its reason printed (after its output, when held).
 */
async function run(pass: Pass, held: boolean): Promise<{ code: number; output: Buffer[] }> {
  // Piped, mocha would drop its colours: keep them when it would have printed to a terminal.
  const colour = !held && process.stdout.isTTY ? ["--color"] : [];
  const report = reportFileFor();
  const child = spawn(process.execPath, [mocha, ...colour, ...pass.args], {
    cwd: root,
    env: { ...pass.env, ...report.env },
    stdio: [held ? "ignore" : "inherit", "pipe", "pipe"],
  });
  const output: Buffer[] = [];
  // stdout and stderr into one buffer, in arrival order, as a terminal would show them.
  const collect = (to: NodeJS.WriteStream) => (chunk: Buffer) => {
    output.push(chunk);
    if (!held) to.write(chunk);
  };
  child.stdout.on("data", collect(process.stdout));
  child.stderr.on("data", collect(process.stderr));
  const stuck = killIfStuck(child, output);
  const overTime = killIfOverTime(child, report.file);
  const exited = await new Promise<number>((resolve) => child.on("close", (exit, signal) => resolve(exit ?? (signal ? 1 : 0))));
  stuck.clear();
  overTime.clear();
  report.remove();
  if (overTime.killed) {
    const line = Buffer.from(
      `\n  npm test fails: the ${pass.name} pass was still running ${PASS_LIMIT_MS} ms after it started ` +
        `(RSMQ_TEST_PASS_LIMIT_MS): a wait with no end; the pass was killed.\n${await overTime.diagnosis}\n`,
    );
    if (held) output.push(line);
    else process.stderr.write(line);
    return { code: 1, output };
  }
  if (stuck.killed) {
    const line = Buffer.from(
      `\n  npm test fails: the ${pass.name} pass printed its summary but had not exited ${EXIT_GRACE_MS} ms later: ` +
        "a test left something running (a client, a server, a timer); the pass was killed\n",
    );
    if (held) output.push(line);
    else process.stderr.write(line);
    return { code: 1, output };
  }
  const code = exited;
  const empty = code === 0 ? emptyPassReason(pass.name, Buffer.concat(output).toString("utf8")) : undefined;
  if (empty === undefined) return { code, output };
  const line = Buffer.from(`\n  npm test fails: ${empty}\n`);
  if (held) output.push(line);
  else process.stderr.write(line);
  return { code: 1, output };
}

/**
 * How long a pass may run on once mocha printed its summary (RSMQ_TEST_EXIT_GRACE_MS, default 60 s):
 * mocha then only waits for the process to have nothing left to do, so a pass still running after
 * it was kept alive by something a test left behind, and would keep npm test waiting for ever.
 */
const EXIT_GRACE_MS = Number(process.env.RSMQ_TEST_EXIT_GRACE_MS ?? 60_000);

/** Kills `child` EXIT_GRACE_MS after its output first shows mocha's summary (`N passing (...)`). */
function killIfStuck(child: ChildProcess, output: Buffer[]): { readonly killed: boolean; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const state = {
    killed: false,
    clear: () => {
      clearTimeout(timer);
      child.stdout?.off("data", watch);
    },
  };
  // The summary may come split across chunks: read what arrived so far.
  const watch = (): void => {
    if (timer !== undefined || readSummary(Buffer.concat(output).toString("utf8")) === undefined) return;
    timer = setTimeout(() => {
      state.killed = true;
      killTree(child.pid);
    }, EXIT_GRACE_MS);
  };
  child.stdout?.on("data", watch);
  return state;
}

/**
 * How long a pass may run in all (RSMQ_TEST_PASS_LIMIT_MS, default 30 min: the longest pass takes
 * 9 to 15 min on 2 busy cores). Every test has mocha's timeout, but a wait mocha cannot time out
 * (one in a hook's clean-up after a timeout, say) would otherwise hold CI for its 90 min.
 */
const PASS_LIMIT_MS = Number(process.env.RSMQ_TEST_PASS_LIMIT_MS ?? 30 * 60_000);

/**
 * Kills `child` once it has run PASS_LIMIT_MS, after asking it for a diagnostic report (written
 * to `reportFile`); `diagnosis` then resolves what the report says (see describeReport).
 */
function killIfOverTime(child: ChildProcess, reportFile: string): { readonly killed: boolean; diagnosis: Promise<string>; clear(): void } {
  let resolveDiagnosis: (text: string) => void = () => undefined;
  const state = {
    killed: false,
    diagnosis: new Promise<string>((resolve) => (resolveDiagnosis = resolve)),
    clear: () => clearTimeout(timer),
  };
  const timer = setTimeout(() => {
    state.killed = true;
    void requestReport(child, reportFile).then((report) => {
      killTree(child.pid);
      resolveDiagnosis(describeReport(report));
    });
  }, PASS_LIMIT_MS);
  return state;
}

async function main(): Promise<number> {
  if (only !== undefined) {
    const pass = passes[only];
    if (!pass) {
      process.stderr.write(`--only takes one of ${Object.keys(passes).join(", ")}, got ${only}\n`);
      return 2;
    }
    return (await run(pass, false)).code;
  }
  const serial = Boolean(process.env.REDIS_URL || process.env.TEST_REDIS || process.env.RSMQ_TEST_SERIAL === "1");
  if (serial) {
    for (const pass of [single, cluster, ...clientPasses]) {
      const { code } = await run(pass, false);
      if (code !== 0) return code;
    }
    return 0;
  }
  const held = tracks.slice(1).map(async (track) => {
    const results: Array<{ pass: Pass; code: number; output: Buffer[] }> = [];
    for (const pass of track) results.push({ pass, ...(await run(pass, true)) });
    return results;
  });
  const first = await run(tracks[0][0], false);
  const codes = [first.code];
  process.stdout.write("\n  (the passes run alongside follow, each as a whole once it ends)\n");
  for (const track of held) {
    for (const { pass, code, output } of await track) {
      process.stdout.write(`\n  ${describe(pass)}, run alongside:\n`);
      for (const chunk of output) process.stdout.write(chunk);
      codes.push(code);
    }
  }
  return codes.find((code) => code !== 0) ?? 0;
}

/** How a held pass is introduced in the output. */
function describe(pass: Pass): string {
  const target = pass.env.RSMQ_TEST_TARGET === "cluster" ? "the Redis Cluster target" : "one redis-server";
  const client = pass.env.RSMQ_TEST_CLIENT;
  return client ? `${target}, through a ${client} client passed in (RSMQ_TEST_CLIENT=${client})` : `The ${pass.name} pass (${target})`;
}

void main().then((code) => {
  process.exitCode = code;
});
