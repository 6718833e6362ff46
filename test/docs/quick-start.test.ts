/**
 * The README's quick start runs as written: each code block of its "Quick start" section is saved
 * under the file name its first line gives, in a project whose node_modules/rsmq-next is this
 * package (as after `npm install rsmq-next`), and run with node against the test Redis. Only the
 * connection options change: the README's `{ host: "127.0.0.1", port: 6379, ns: "rsmq" }` becomes
 * the test server's, in a namespace of the test's own. Each block's output is checked, so a sample
 * that no longer runs, or no longer does what the text says, fails here. The README says each file
 * stands alone: each runs alone in a fresh namespace, then all three in order in one namespace.
 */
import { expect } from "chai";
import { spawn } from "child_process";
import type { ChildProcess } from "child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import * as path from "path";
import RedisSMQ = require("../../lib/index");
import { codeBlocks, readDoc, repositoryRoot, section } from "../support/markdown";
import { singleServerOptions, uniqueNs } from "../support/server";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single");

/** The connection options every quick-start block opens with, as the README writes them. */
const README_CONNECTION = '{ host: "127.0.0.1", port: 6379, ns: "rsmq" }';
/** How long a block that ends by itself may take. */
const EXIT_WITHIN_MS = 20_000;

interface Run {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

describe("README: the quick start runs as written", function () {
  this.timeout(60_000);
  let project: string;
  let blocks: Map<string, string>;
  const namespaces: string[] = [];
  const running: ChildProcess[] = [];

  before(() => {
    blocks = new Map();
    for (const { language, code } of codeBlocks(section(readDoc("README.md"), "Quick start"))) {
      const name = /^\/\/ (\S+\.mjs)\n/.exec(code)?.[1];
      expect(language, "a quick-start block's language").to.equal("js");
      expect(name, `a quick-start block names its file on its first line ("// send.mjs"):\n${code}`).to.be.a("string");
      expect(code, `${name} connects with the README's options`).to.include(README_CONNECTION);
      blocks.set(name!, code);
    }
    // A new block needs its checks below.
    expect([...blocks.keys()]).to.deep.equal(["send.mjs", "worker.mjs", "dead-letters.mjs"]);

    project = mkdtempSync(path.join(tmpdir(), "rsmq-next-readme-"));
    mkdirSync(path.join(project, "node_modules"));
    symlinkSync(repositoryRoot, path.join(project, "node_modules", "rsmq-next"), "dir");
  });

  after(async () => {
    for (const child of running) if (child.exitCode === null) child.kill("SIGKILL");
    for (const ns of namespaces) {
      const rsmq = new RedisSMQ(singleServerOptions(ns));
      for (const qname of await rsmq.listQueuesAsync()) await rsmq.deleteQueueAsync({ qname });
      await rsmq.quitAsync();
    }
    rmSync(project, { recursive: true, force: true });
  });

  /**
   * A fresh namespace and a folder of the project for it, holding the blocks with their connection
   * set to it (node finds rsmq-next in the project's node_modules, one folder up).
   */
  function freshNamespace(): string {
    const ns = uniqueNs("readme");
    namespaces.push(ns);
    mkdirSync(path.join(project, ns));
    const connection = JSON.stringify(singleServerOptions(ns));
    for (const [name, code] of blocks) writeFileSync(path.join(project, ns, name), code.split(README_CONNECTION).join(connection));
    return ns;
  }

  function start(ns: string, name: string): Run {
    const child = spawn(process.execPath, [name], { cwd: path.join(project, ns), stdio: ["ignore", "pipe", "pipe"] });
    running.push(child);
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exit = new Promise<number | null>((resolve) => child.once("close", resolve));
    return { child, output: () => output, exit };
  }

  /** Runs a block that ends by itself; resolves its output once it exited 0. */
  async function runToEnd(ns: string, name: string): Promise<string> {
    const run = start(ns, name);
    let code: number | null | undefined;
    void run.exit.then((exitCode) => (code = exitCode));
    await waitFor(() => code !== undefined, `${name} to exit by itself (output so far: ${run.output()})`, EXIT_WITHIN_MS);
    expect(code, `${name} exit code; its output:\n${run.output()}`).to.equal(0);
    return run.output();
  }

  async function sendCreatesSendsReceivesDeletes(ns: string): Promise<void> {
    const output = await runToEnd(ns, "send.mjs");
    expect(output).to.match(/^sent [a-zA-Z0-9]{32}$/m);
    expect(output).to.include('received {"to":"ada"} delivery 1');
    const rsmq = new RedisSMQ(singleServerOptions(ns));
    const attributes = await rsmq.getQueueAttributesAsync({ qname: "jobs" });
    await rsmq.quitAsync();
    expect(attributes).to.include({ totalsent: 1, totalrecv: 1, msgs: 0 });
  }

  async function workerHandlesRetriesDeadLetters(ns: string): Promise<void> {
    const run = start(ns, "worker.mjs");
    const saw = (pattern: RegExp) => () => pattern.test(run.output());
    await waitFor(saw(/^delivered to ada \(attempt 1\)$/m), `ada's job handled (output: ${run.output()})`, EXIT_WITHIN_MS);
    await waitFor(saw(/^retry in \d+ ms: server busy, try again$/m), `bob's job retried (output: ${run.output()})`, EXIT_WITHIN_MS);
    await waitFor(saw(/^delivered to bob \(attempt 2\)$/m), `bob's job handled on its retry (output: ${run.output()})`, EXIT_WITHIN_MS);
    await waitFor(
      saw(/^dead-lettered [a-zA-Z0-9]{32}: poison$/m),
      `the poison message dead-lettered (output: ${run.output()})`,
      EXIT_WITHIN_MS,
    );
    // The comment's first backoff: 0.5 to 1 s (initialDelayMs 1000, equal jitter).
    const delayMs = Number(/^retry in (\d+) ms/m.exec(run.output())![1]);
    expect(delayMs, "the first retry's delay").to.be.within(500, 1000);

    run.child.kill("SIGTERM");
    let code: number | null | undefined;
    void run.exit.then((exitCode) => (code = exitCode));
    await waitFor(() => code !== undefined, `worker.mjs to exit after SIGTERM (output: ${run.output()})`, EXIT_WITHIN_MS);
    expect(code, run.output()).to.equal(0);
    expect(run.output()).not.to.include("queue error");

    const rsmq = new RedisSMQ(singleServerOptions(ns));
    const [jobs, dlq] = await Promise.all([
      rsmq.getQueueAttributesAsync({ qname: "jobs" }),
      rsmq.getQueueAttributesAsync({ qname: "jobs-dlq" }),
    ]);
    await rsmq.quitAsync();
    expect(jobs.msgs, "messages left in jobs").to.equal(0);
    expect(dlq.msgs, "messages in jobs-dlq").to.equal(1);
  }

  describe("each file alone, in a fresh namespace", () => {
    it("send.mjs creates the queue, sends a message, receives it and deletes it", async () => {
      await sendCreatesSendsReceivesDeletes(freshNamespace());
    });

    it("worker.mjs creates the queue, handles, retries and dead-letters, and stops cleanly on SIGTERM", async () => {
      await workerHandlesRetriesDeadLetters(freshNamespace());
    });

    it("dead-letters.mjs says nothing is dead-lettered yet, and exits", async () => {
      const output = await runToEnd(freshNamespace(), "dead-letters.mjs");
      expect(output.trim()).to.equal("nothing dead-lettered yet");
    });
  });

  describe("the three in order, in one namespace", () => {
    let ns: string;
    before(() => (ns = freshNamespace()));

    it("send.mjs creates the queue, sends a message, receives it and deletes it", async () => {
      await sendCreatesSendsReceivesDeletes(ns);
    });

    it("worker.mjs handles, retries and dead-letters, and stops cleanly on SIGTERM", async () => {
      await workerHandlesRetriesDeadLetters(ns);
    });

    it("dead-letters.mjs shows the dead-lettered message and why it stopped", async () => {
      const output = await runToEnd(ns, "dead-letters.mjs");
      expect(output).to.match(/^[a-zA-Z0-9]{32} "not JSON" poison \(deliveries: 1\): not JSON$/m);
    });
  });
});
