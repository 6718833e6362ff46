/**
 * Day one: a Worker asleep in one process hears a send from any other rsmq-next producer at its
 * defaults (the CLI's `send`, the dashboard's send form, a library producer without `realtime`)
 * at once, through the queue's wake channel, not at its cap. The Worker runs in a child process
 * with a cap far longer than the test, and reports its wakes: each send makes exactly one wake
 * that ends a sleep ("woken"), and no sleep ends any other way.
 */
import { expect } from "chai";
import { spawn } from "child_process";
import type { ChildProcess } from "child_process";
import { join } from "path";
import RedisSMQ = require("../../lib/index");
import { at, jsonLines, runCli, startCli } from "../support/cli";
import { post } from "../support/dashboard";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { subscribersOf, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

/** Far longer than the test: a message handled before it can only have been woken for. */
const CAP = 600_000;
/** The bound on each handling: a wake, a look and a handler, on a loaded machine. */
const BOUND_MS = 15_000;

const ENTRY = join(__dirname, "..", "..", "lib", "index.js");

/** A Worker in its own process, printing one JSON line per wake and per message handled. */
function workerProcess(options: object, qname: string): { child: ChildProcess; lines(): Array<Record<string, unknown>> } {
  const program = `
    const RedisSMQ = require(${JSON.stringify(ENTRY)});
    const rsmq = new RedisSMQ(${JSON.stringify(options)});
    const print = (line) => process.stdout.write(JSON.stringify(line) + "\\n");
    const worker = new RedisSMQ.Worker(rsmq, {
      qname: ${JSON.stringify(qname)},
      maxIdleSleepMs: ${CAP},
      handler: (message) => print({ handled: message.message }),
    });
    worker.on("wake", (reason) => print({ wake: reason }));
    worker.on("sleep", (ms) => print({ sleep: ms }));
    worker.on("error", (error) => print({ error: String(error) }));
    worker.start();
    process.on("SIGTERM", () => worker.stop().then(() => rsmq.quitAsync()).then(() => process.exit(0)));
  `;
  const child = spawn(process.execPath, ["-e", program], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  return { child, lines: () => jsonLines(out) };
}

/** A library producer at its defaults (no `realtime`), in its own process. */
function sendFromDefaultProducer(options: object, qname: string, message: string): Promise<void> {
  const program = `
    const RedisSMQ = require(${JSON.stringify(ENTRY)});
    const rsmq = new RedisSMQ(${JSON.stringify(options)});
    rsmq.sendMessageAsync({ qname: ${JSON.stringify(qname)}, message: ${JSON.stringify(message)} })
      .then(() => rsmq.quitAsync())
      .catch((error) => { console.error(error); process.exit(1); });
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", program], { stdio: "inherit" });
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`the producer exited with ${code}`))));
  });
}

describe("Worker: wakes across processes at the producers' defaults", () => {
  let ns: string;
  let setup: RedisSMQ;
  let worker: ReturnType<typeof workerProcess> | undefined;
  let dashboard: ReturnType<typeof startCli> | undefined;

  beforeEach(async () => {
    ns = uniqueNs("xwake");
    setup = new RedisSMQ(connectionOptions(ns));
    await setup.createQueueAsync({ qname: "q" });
  });
  afterEach(async () => {
    worker?.child.kill("SIGTERM");
    dashboard?.child.kill("SIGTERM");
    await Promise.all([worker?.child, dashboard?.child].map((child) => child && new Promise((resolve) => child.once("close", resolve))));
    worker = dashboard = undefined;
    await setup.deleteQueueAsync({ qname: "q" }).catch(() => undefined);
    await setup.quitAsync();
  });

  it("the CLI, the dashboard and a library producer each wake a sleeping Worker in another process: one wake per send", async function () {
    this.timeout(4 * BOUND_MS + 30_000);
    const { wakeChannel } = keysOf(ns, "q");
    worker = workerProcess(connectionOptions(ns), "q");
    const admin = await plainClient();
    try {
      // Subscribed, and asleep for the cap: from here only a wake can end its sleep.
      await waitFor(async () => (await subscribersOf(admin, wakeChannel)) === 1, "the Worker's wake subscription", BOUND_MS);
    } finally {
      await admin.quit();
    }
    await waitFor(() => worker!.lines().some((line) => line.sleep === CAP), "the Worker asleep for its cap", BOUND_MS);
    const before = worker.lines().length;
    const since = (): Array<Record<string, unknown>> => worker!.lines().slice(before);
    const handled = (message: string) => () => since().some((line) => line.handled === message);

    const cli = await runCli([...at(ns), "send", "q", "from the CLI"]);
    expect(cli.code, cli.stderr).to.equal(0);
    await waitFor(handled("from the CLI"), "the CLI's message handled", BOUND_MS);

    dashboard = startCli([...at(ns), "dashboard", "--port", "0", "--read-write"], { timeoutMs: 4 * BOUND_MS + 30_000 });
    await waitFor(() => /dashboard: (http:\S+)/.test(dashboard!.output().stdout), "the dashboard's address", BOUND_MS);
    const url = /dashboard: (http:\S+)/.exec(dashboard.output().stdout)![1];
    const answer = await post(`${url}api/queues/q/messages`, { message: "from the dashboard" });
    expect(answer.status, answer.text).to.be.within(200, 201);
    await waitFor(handled("from the dashboard"), "the dashboard's message handled", BOUND_MS);

    await sendFromDefaultProducer(connectionOptions(ns), "q", "from a library producer");
    await waitFor(handled("from a library producer"), "the library producer's message handled", BOUND_MS);
    await waitFor(() => since().filter((line) => line.sleep === CAP).length === 3, "the Worker asleep again", BOUND_MS);

    const wakes = since().filter((line) => line.wake !== undefined);
    expect(wakes, JSON.stringify(since())).to.deep.equal([{ wake: "woken" }, { wake: "woken" }, { wake: "woken" }]);
    expect(since().filter((line) => line.error !== undefined)).to.deep.equal([]);
  });
});
