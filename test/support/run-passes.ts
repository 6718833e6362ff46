/**
 * `npm test`: the two mocha passes (one redis-server, then the Redis Cluster target) at the same
 * time. Each pass starts servers of its own on free ports (see server.ts), so neither sees the
 * other's commands, counters, CONFIG SET or restarts; and most of each pass is spent waiting on
 * child processes and servers, not computing, so on 2 cores the two overlap well.
 *
 * The single-server pass prints as it runs; the cluster pass's output is held and printed whole
 * after it, so each pass's lines (and its "N passing" summary, which .ci/run adds up) stay intact.
 * With REDIS_URL or TEST_REDIS the passes would share one server, so they run one after the other,
 * as they do with RSMQ_TEST_SERIAL=1. Arguments after `npm test --` go to both passes.
 */
import { spawn } from "child_process";
import * as path from "path";

const root = path.resolve(__dirname, "../../..");
const mocha = path.join(root, "node_modules/mocha/bin/mocha.js");
const extra = process.argv.slice(2);

interface Pass {
  args: string[];
  env: NodeJS.ProcessEnv;
}

const single: Pass = { args: extra, env: process.env };
const cluster: Pass = { args: ["--config", ".mocharc.cluster.json", ...extra], env: { ...process.env, RSMQ_TEST_TARGET: "cluster" } };

/** Runs one pass; with `held`, its output is collected and returned instead of printed. */
function run(pass: Pass, held: boolean): Promise<{ code: number; output: Buffer[] }> {
  const child = spawn(process.execPath, [mocha, ...pass.args], {
    cwd: root,
    env: pass.env,
    stdio: held ? ["ignore", "pipe", "pipe"] : "inherit",
  });
  const output: Buffer[] = [];
  // stdout and stderr into one buffer, in arrival order, as a terminal would show them.
  child.stdout?.on("data", (chunk: Buffer) => output.push(chunk));
  child.stderr?.on("data", (chunk: Buffer) => output.push(chunk));
  return new Promise((resolve) => {
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

async function main(): Promise<number> {
  const serial = Boolean(process.env.REDIS_URL || process.env.TEST_REDIS || process.env.RSMQ_TEST_SERIAL === "1");
  if (serial) {
    const first = await run(single, false);
    if (first.code !== 0) return first.code;
    return (await run(cluster, false)).code;
  }
  let clusterDone = false;
  const clusterRun = run(cluster, true).finally(() => (clusterDone = true));
  const first = await run(single, false);
  if (!clusterDone) process.stdout.write("\n  (waiting for the Redis Cluster pass, which runs alongside)\n");
  const second = await clusterRun;
  process.stdout.write("\n  Redis Cluster target (RSMQ_TEST_TARGET=cluster), run alongside:\n");
  for (const chunk of second.output) process.stdout.write(chunk);
  return first.code !== 0 ? first.code : second.code;
}

void main().then((code) => {
  process.exitCode = code;
});
