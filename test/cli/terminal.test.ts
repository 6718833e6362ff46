/**
 * The command line on a terminal (a pseudo-terminal, as a person's shell gives it): delete-queue
 * and purge ask first, redrive shows its progress line, and Ctrl-C typed into the terminal ends
 * the long-running commands (demo, worker, stats --watch) after they clean up, with the status a
 * shell gives a program that Ctrl-C stopped: 130, so `cmd && next` and loops stop too.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, singleServerOnly, uniqueNs } from "../support/server";
import { at, listening, unusedPort } from "../support/cli";
import { plainScreen, startInTerminal, terminalUnavailableReason } from "../support/terminal";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single");

describe("CLI: on a terminal", function () {
  this.timeout(30_000);
  let ns: string;
  let rsmq: RedisSMQ;

  before(function () {
    singleServerOnly(this, "the terminal behaviour does not depend on the server");
    const reason = terminalUnavailableReason();
    if (reason) {
      console.log(`\n  Skipping the terminal tests: ${reason}\n`);
      this.skip();
    }
  });
  beforeEach(async () => {
    ns = uniqueNs("tty");
    rsmq = new RedisSMQ(connectionOptions(ns));
  });
  afterEach(() => rsmq.quitAsync());

  describe("delete-queue asks first", () => {
    beforeEach(async () => {
      await rsmq.createQueueAsync({ qname: "a" });
      await rsmq.sendMessageAsync({ qname: "a", message: "1" });
      await rsmq.sendMessageAsync({ qname: "a", message: "2" });
    });
    const queues = (): Promise<string[]> => rsmq.listQueuesAsync();

    it("naming the queue and its messages; y deletes it", async () => {
      const run = startInTerminal([...at(ns), "delete-queue", "a"]);
      await waitFor(() => run.output().includes("[y/N]"), "the question");
      expect(plainScreen(run.output())).to.include(`delete queue "a" and its 2 messages (namespace ${ns}`);
      run.type("y\n");
      const { status, output } = await run.finished;
      expect(status, output).to.equal(0);
      expect(plainScreen(output)).to.include("deleted queue a and its 2 messages");
      expect(await queues()).to.deep.equal([]);
    });

    it("anything but y keeps the queue (exit code 1, saying so)", async () => {
      const run = startInTerminal([...at(ns), "delete-queue", "a"]);
      await waitFor(() => run.output().includes("[y/N]"), "the question");
      run.type("\n");
      const { status, output } = await run.finished;
      expect(status, output).to.equal(1);
      expect(plainScreen(output)).to.include('queue "a" was not deleted');
      expect(plainScreen(output)).to.include("--yes");
      expect(await queues()).to.deep.equal(["a"]);
    });

    it("--yes deletes without asking", async () => {
      const { status, output } = await startInTerminal([...at(ns), "delete-queue", "a", "--yes"]).finished;
      expect(status, output).to.equal(0);
      expect(output).not.to.include("[y/N]");
      expect(await queues()).to.deep.equal([]);
    });

    it("Ctrl-C at the question keeps the queue and ends by SIGINT (status 130)", async () => {
      const run = startInTerminal([...at(ns), "delete-queue", "a"]);
      await waitFor(() => run.output().includes("[y/N]"), "the question");
      run.type("\x03");
      const { status, output } = await run.finished;
      expect(status, output).to.equal(130);
      expect(await queues()).to.deep.equal(["a"]);
    });
  });

  describe("purge asks first", () => {
    beforeEach(async () => {
      await rsmq.createQueueAsync({ qname: "a" });
      await rsmq.sendMessageAsync({ qname: "a", message: "1" });
      await rsmq.sendMessageAsync({ qname: "a", message: "2" });
    });
    const messages = async (): Promise<number> => (await rsmq.getQueueAttributesAsync({ qname: "a" })).msgs;

    it("naming the queue and its messages; y purges it, the queue stays", async () => {
      const run = startInTerminal([...at(ns), "purge", "a"]);
      await waitFor(() => run.output().includes("[y/N]"), "the question");
      expect(plainScreen(run.output())).to.include(`remove all 2 messages of queue "a" (namespace ${ns}`);
      run.type("y\n");
      const { status, output } = await run.finished;
      expect(status, output).to.equal(0);
      expect(plainScreen(output)).to.include("purged queue a: removed 2 messages");
      expect(await messages()).to.equal(0);
      expect(await rsmq.listQueuesAsync()).to.deep.equal(["a"]);
    });

    it("anything but y removes nothing (exit code 1, saying so); --yes does not ask", async () => {
      const run = startInTerminal([...at(ns), "purge", "a"]);
      await waitFor(() => run.output().includes("[y/N]"), "the question");
      run.type("\n");
      const refused = await run.finished;
      expect(refused.status, refused.output).to.equal(1);
      expect(plainScreen(refused.output)).to.include('queue "a" was not purged');
      expect(await messages()).to.equal(2);

      const { status, output } = await startInTerminal([...at(ns), "purge", "a", "--yes"]).finished;
      expect(status, output).to.equal(0);
      expect(output).not.to.include("[y/N]");
      expect(await messages()).to.equal(0);
    });
  });

  it("redrive draws its progress line on the terminal, then erases it and shows the cursor again", async () => {
    await rsmq.createQueueAsync({ qname: "dlq" });
    await rsmq.createQueueAsync({ qname: "q" });
    for (const message of ["1", "2", "3"]) await rsmq.sendMessageAsync({ qname: "dlq", message });
    const { status, output } = await startInTerminal([...at(ns), "redrive", "dlq", "--to", "q"]).finished;
    expect(status, output).to.equal(0);
    const screen = plainScreen(output);
    expect(screen).to.include(` redrive ${"░".repeat(24)} 0/3 messages`);
    expect(screen).to.include(` redrive ${"█".repeat(24)} 3/3 messages`);
    expect(screen).to.include("moved 3 messages from dlq to q");
    expect(output.lastIndexOf("\x1b[?25h")).to.be.above(output.lastIndexOf("\x1b[?25l"));
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(3);
  });

  describe("Ctrl-C", () => {
    it("demo: stops, deletes its queues, stops the throwaway redis-server, restores the cursor, no error (status 130)", async () => {
      const port = await unusedPort();
      const run = startInTerminal(["--url", `redis://127.0.0.1:${port}`, "demo"], { env: { RSMQ_NEXT_DEMO_SCALE: "0.1" } });
      await waitFor(() => plainScreen(run.output()).includes("sent 200 messages at once"), "the burst to be sent");
      const throwaway = Number(/started a throwaway redis-server on port (\d+)/.exec(plainScreen(run.output()))![1]);
      run.type("\x03");
      const { status, output } = await run.finished;
      const screen = plainScreen(output);
      expect(status, screen).to.equal(130);
      expect(screen).to.include("demo interrupted: its queues were deleted and the throwaway redis-server stopped");
      expect(screen).not.to.include("error:");
      expect(await listening(throwaway)).to.equal(false);
      // The live progress line hides the cursor while it shows: it must be shown again.
      expect(output.lastIndexOf("\x1b[?25h")).to.be.above(output.lastIndexOf("\x1b[?25l"));
    });

    it("worker and stats --watch: stop cleanly and end by SIGINT (status 130)", async () => {
      await rsmq.createQueueAsync({ qname: "q" });
      const worker = startInTerminal([...at(ns), "worker", "q", "--exec", "cat"]);
      const stats = startInTerminal([...at(ns), "stats", "q", "--watch", "--interval", "0.2"]);
      await waitFor(() => worker.output().includes("Ctrl-C to stop") && stats.output().includes("Ctrl-C to stop"), "both to start");
      worker.type("\x03");
      stats.type("\x03");
      const [workerEnd, statsEnd] = await Promise.all([worker.finished, stats.finished]);
      expect(workerEnd.status, workerEnd.output).to.equal(130);
      expect(plainScreen(workerEnd.output)).to.include("stopped: 0 messages handled");
      expect(statsEnd.status, statsEnd.output).to.equal(130);
      expect(plainScreen(statsEnd.output)).not.to.include("error:");
    });
  });
});
