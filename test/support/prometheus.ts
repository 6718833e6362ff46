/**
 * Prometheus' own tools for the metrics tests: Debian's `prometheus` server (2.42, /usr/bin; `.ci/run`
 * installs the package when missing), started with a temporary configuration and storage on a
 * free port and queried through its HTTP API, and `promtool check metrics`, which parses an
 * exposition text as Prometheus does and says what it finds wrong. The exposition parser here is
 * for reading values in tests, not a check of the format (promtool is that).
 */
import { spawn } from "child_process";
import type { ChildProcess } from "child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import * as path from "path";
import { freePort } from "../../lib/cli/redis/redis-server";

/** Where the binaries are: PROMETHEUS_PATH / PROMTOOL_PATH, else Debian's package. */
export const PROMETHEUS = process.env.PROMETHEUS_PATH || "/usr/bin/prometheus";
export const PROMTOOL = process.env.PROMTOOL_PATH || "/usr/bin/promtool";

/** Why the Prometheus tests cannot run here, or undefined when they can. */
export function prometheusMissing(): string | undefined {
  for (const binary of [PROMETHEUS, PROMTOOL]) {
    if (!existsSync(binary)) return `${binary} not found: install Debian's prometheus package (.ci/run does)`;
  }
  return undefined;
}

/** What `promtool check metrics` said of a text: its exit code and output. */
export function promtoolCheck(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PROMTOOL, ["check", "metrics"], { stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
    child.stdin.end(text);
  });
}

/** One sample of an exposition text, as written: `name{a="x",b="y"}` → value. */
export function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

/** A Prometheus server scraping one target. */
export interface RunningPrometheus {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The value of an instant query's first result, or undefined when it has none (yet). */
  queryValue(query: string): Promise<number | undefined>;
  /** What it logged so far. */
  log(): string;
  /** Stops it and removes its configuration and storage. */
  stop(): Promise<void>;
}

/** Starts Prometheus scraping `target` (`host:port`) at `metricsPath` every second; resolves once it answers ready. */
export async function startPrometheus(target: string, metricsPath = "/metrics"): Promise<RunningPrometheus> {
  const dir = mkdtempSync(path.join(tmpdir(), "rsmq-next-prometheus-"));
  const config = path.join(dir, "prometheus.yml");
  writeFileSync(
    config,
    [
      "global:",
      "  scrape_interval: 1s",
      "  scrape_timeout: 1s",
      "  evaluation_interval: 1s",
      "scrape_configs:",
      "  - job_name: rsmq",
      `    metrics_path: ${metricsPath}`,
      "    static_configs:",
      `      - targets: ["${target}"]`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      // No lookback beyond the scrapes of this test: a query sees the latest sample only.
      "--query.lookback-delta=5s",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let logged = "";
  const keep = (chunk: Buffer): void => {
    logged = (logged + chunk.toString("utf8")).slice(-20_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited (${child.exitCode}) before it was ready:\n${logged}`);
    }
    const ready = await fetch(`${url}/-/ready`).then(
      (res) => res.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus was not ready within 30 s:\n${logged}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    log: () => logged,
    stop,
    async queryValue(query: string): Promise<number | undefined> {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(query)}`);
      const body = (await res.json()) as { status: string; error?: string; data: { result: Array<{ value: [number, string] }> } };
      if (body.status !== "success") throw new Error(`query ${query} failed: ${body.error}`);
      const [first] = body.data.result;
      return first === undefined ? undefined : Number(first.value[1]);
    },
  };
}
