/**
 * `rsmq-next metrics` against the test server: it prints the address it listens on (--port 0
 * picks a free one), serves the queue-state metrics at GET (and HEAD) /metrics in the text format,
 * with every queue's figures as Redis holds them, answers 404 elsewhere and 405 to other methods,
 * and on SIGTERM closes everything and ends by that signal, by itself.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, uniqueNs } from "../support/server";
import { at, startCli } from "../support/cli";
import { send } from "../support/dashboard";
import { parseExposition, prometheusMissing, promtoolCheck } from "../support/prometheus";
import { CLOCK_SAMPLES, expectedSamples, seedQueues } from "../support/queue-state-seed";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

const ADDRESS = /^metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)$/m;

describe("CLI: metrics", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let running: ReturnType<typeof startCli> | undefined;

  beforeEach(async () => {
    ns = uniqueNs("climetrics");
    rsmq = new RedisSMQ(connectionOptions(ns));
    await seedQueues(rsmq);
  });
  afterEach(async () => {
    running?.child.kill("SIGKILL");
    running = undefined;
    await rsmq.quitAsync();
  });

  /** Starts the exporter on a free port; resolves its URL once it printed it. */
  async function start(...args: string[]): Promise<string> {
    running = startCli([...at(ns), "metrics", "--port", "0", ...args], { timeoutMs: 30_000 });
    const started = running;
    await waitFor(() => ADDRESS.test(started.output().stdout) || started.child.exitCode !== null, "the address on stdout");
    const match = ADDRESS.exec(started.output().stdout);
    expect(match, started.output().stderr).not.to.equal(null);
    return match![1];
  }

  it("--port 0: prints the address; GET /metrics is every queue's state in the text format; SIGTERM ends it by that signal", async () => {
    const url = await start();
    const answer = await send(url);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.headers["content-type"]).to.equal("text/plain; version=0.0.4; charset=utf-8");
    const samples = parseExposition(answer.text);
    const exact = Object.fromEntries([...samples].filter(([name]) => !CLOCK_SAMPLES.includes(name)));
    expect(exact).to.deep.equal(expectedSamples());
    for (const name of CLOCK_SAMPLES) expect(samples.get(name), name).to.be.a("number").above(0);
    running!.child.kill("SIGTERM");
    const result = await running!.finished;
    expect([result.code, result.signal], result.stderr).to.deep.equal([null, "SIGTERM"]);
    expect(result.stderr).to.equal("");
  });

  it("promtool check metrics parses what it serves", async () => {
    const missing = prometheusMissing();
    if (missing) throw new Error(missing);
    const checked = await promtoolCheck((await send(await start())).text);
    expect(checked, checked.output).to.deep.equal({ code: 0, output: "" });
  });

  it("HEAD /metrics: the headers only; 404 on another path; 405 with Allow for another method", async () => {
    const url = await start();
    const head = await send(url, { method: "HEAD" });
    expect([head.status, head.text, head.headers["content-type"]]).to.deep.equal([200, "", "text/plain; version=0.0.4; charset=utf-8"]);
    const elsewhere = await send(url.replace(/metrics$/, "other"));
    expect(elsewhere.status).to.equal(404);
    expect(elsewhere.text).to.include("/metrics");
    const posted = await send(url, { method: "POST", body: "x" });
    expect([posted.status, posted.headers.allow]).to.deep.equal([405, "GET, HEAD"]);
  });

  it("--json: the address as one event", async () => {
    running = startCli(["--json", ...at(ns), "metrics", "--port", "0"], { timeoutMs: 30_000 });
    const started = running;
    await waitFor(() => started.output().stdout.includes("\n") || started.child.exitCode !== null, "the event on stdout");
    const event = JSON.parse(started.output().stdout.split("\n")[0]) as { event: string; url: string; ns: string };
    expect(event).to.deep.include({ event: "listening", ns });
    expect((await send(event.url)).status).to.equal(200);
  });

  it("bad flags are usage errors (exit 2) before anything listens", async () => {
    for (const flags of [
      ["--port", "70000"],
      ["--port", "x"],
    ]) {
      running = startCli([...at(ns), "metrics", ...flags]);
      const result = await running.finished;
      expect(result.code, `${flags.join(" ")}: ${result.stderr}`).to.equal(2);
    }
  });
});
