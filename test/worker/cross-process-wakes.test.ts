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
      // As long as the cap: a sleep until a handled message's vt ends (its delete not landed
      // before the next receive) lasts beyond the test too.
      vt: ${CAP / 1000},
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
    const { wakeChannel, realtimeChannel } = keysOf(ns, "q");
    worker = workerProcess(connectionOptions(ns), "q");
    const admin = await plainClient();
    try {
      const subscribed = async (channel: string) => (await subscribersOf(admin, channel)) === 1;
      await waitFor(
        async () => (await subscribed(wakeChannel)) && (await subscribed(realtimeChannel)),
        "the Worker's subscriptions",
        BOUND_MS,
      );
    } finally {
      await admin.quit();
    }
    const lines = (from: number) => worker!.lines().slice(from);
    const handled = (message: string, from: number) => lines(from).some((line) => line.handled === message);
    // Asleep: its last event is a sleep (the cap, or the handled message's vt, as long); a send then
    // ends that sleep with a wake.
    const asleepAfter =
      (message: string, from = 0) =>
      () => {
        const recent = lines(from);
        return handled(message, from) && recent[recent.length - 1]?.sleep !== undefined;
      };
    // A first message, heard on the wake channel after both subscriptions' confirmations, which
    // wake the Worker once more at start-up: once it is handled, start-up is over.
    await setup.sendMessageAsync({ qname: "q", message: "warm-up" });
    await waitFor(asleepAfter("warm-up"), "the warm-up message handled, and the Worker asleep", BOUND_MS);
    const before = worker.lines().length;
    const since = (): Array<Record<string, unknown>> => lines(before);

    const cli = await runCli([...at(ns), "send", "q", "from the CLI"]);
    expect(cli.code, cli.stderr).to.equal(0);
    await waitFor(asleepAfter("from the CLI", before), "the CLI's message handled, and the Worker asleep", BOUND_MS);

    dashboard = startCli([...at(ns), "dashboard", "--port", "0", "--read-write"], { timeoutMs: 4 * BOUND_MS + 30_000 });
    await waitFor(() => /dashboard: (http:\S+)/.test(dashboard!.output().stdout), "the dashboard's address", BOUND_MS);
    const url = /dashboard: (http:\S+)/.exec(dashboard.output().stdout)![1];
    const answer = await post(`${url}api/queues/q/messages`, { message: "from the dashboard" });
    expect(answer.status, answer.text).to.be.within(200, 201);
    await waitFor(asleepAfter("from the dashboard", before), "the dashboard's message handled, and the Worker asleep", BOUND_MS);

    await sendFromDefaultProducer(connectionOptions(ns), "q", "from a library producer");
    await waitFor(
      asleepAfter("from a library producer", before),
      "the library producer's message handled, and the Worker asleep",
      BOUND_MS,
    );

    const wakes = since().filter((line) => line.wake !== undefined);
    expect(wakes, JSON.stringify(since())).to.deep.equal([{ wake: "woken" }, { wake: "woken" }, { wake: "woken" }]);
    expect(since().filter((line) => line.error !== undefined)).to.deep.equal([]);
  });
});
