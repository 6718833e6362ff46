/**
 * `rsmq-next worker <qname> --exec "<command>"` against the test server: each message on the
 * command's stdin with its details in RSMQ_* variables, exit 0 handled, other statuses retried
 * then dead-lettered, --poison-exit at once, --until-empty, --json events, and Ctrl-C.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, uniqueNs } from "../support/server";
import { at, jsonLines, runCli, startCli } from "../support/cli";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

describe("CLI: worker --exec", () => {
  let ns: string;
  let rsmq: RedisSMQ;

  beforeEach(async () => {
    ns = uniqueNs("cli");
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => rsmq.quitAsync());

  const worker = (...args: string[]) => runCli([...at(ns), "worker", "q", ...args]);

  it("pipes each message into the command's stdin; exit 0 deletes it; --until-empty ends the run (exit 0)", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "first" });
    await rsmq.sendMessageAsync({ qname: "q", message: "second\nwith two lines" });
    const result = await worker("--exec", "cat; echo", "--until-empty");
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.equal("first\nsecond\nwith two lines\n");
    expect(result.stderr).to.match(/✓ \w{32} handled in /);
    expect(result.stderr).to.include("stopped: 2 messages handled, 0 retried, 0 dead-lettered");
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);
  });

  it("gives the command the message's id, receive count and queue in RSMQ_* variables", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "x" });
    const result = await worker("--exec", 'echo "$RSMQ_MESSAGE_ID $RSMQ_RECEIVE_COUNT $RSMQ_QNAME $RSMQ_NS"', "--until-empty");
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.equal(`${id} 1 q ${ns}\n`);
  });

  it("retries a failing command with backoff, then dead-letters it with the exit status and stderr", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "doomed" });
    const result = await worker(
      "--exec",
      "cat >/dev/null; echo 'disk full' >&2; exit 3",
      "--max-deliveries",
      "2",
      "--retry-delay",
      "50",
      "--until-empty",
    );
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.match(new RegExp(`↻ ${id} failed \\(delivery 1\\): exit status 3: disk full; retry in \\d+ms`));
    expect(result.stderr).to.include(`✗ ${id} failed (delivery 2): exit status 3: disk full; exhausted, dead-lettered`);
    expect(result.stderr).to.include("stopped: 0 messages handled, 1 retried, 1 dead-lettered");
    const [dead] = await rsmq.peekDeadLettersAsync({ qname: "q-dlq" });
    expect(dead).to.deep.include({ id, message: "doomed" });
    expect(dead.deadLetter).to.include({ source: "q", deliveries: 2, reason: "exhausted", error: "exit status 3: disk full" });
  });

  it("--poison-exit: that status dead-letters at once, to --dlq", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "unparseable" });
    const result = await worker("--exec", "exit 100", "--poison-exit", "100", "--dlq", "graveyard", "--until-empty");
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.include("poison, dead-lettered");
    const [dead] = await rsmq.peekDeadLettersAsync({ qname: "graveyard" });
    expect(dead.deadLetter).to.include({ deliveries: 1, reason: "poison", error: "exit status 100" });
  });

  it("a bad --dlq is a usage error (exit 2) that names --dlq and the value, before any message is taken", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "stays" });
    const result = await worker("--exec", "cat", "--dlq", "bad name", "--until-empty");
    expect(result.code, result.stderr).to.equal(2);
    expect(result.stderr).to.include('invalid queue name "bad name" for --dlq');
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).totalrecv).to.equal(0);
  });

  it("--json: one event per line on stdout, the command's output on stderr", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "payload" });
    const result = await runCli([...at(ns), "--json", "worker", "q", "--exec", "cat", "--until-empty"]);
    expect(result.code, result.stderr).to.equal(0);
    const events = jsonLines(result.stdout);
    expect(events.map((event) => event.event)).to.deep.equal(["started", "handled", "stopped"]);
    expect(events[0]).to.include({ qname: "q", ns, concurrency: 1, deadLetterQueue: "q-dlq" });
    expect(events[1]).to.include({ id, rc: 1 });
    expect(events[2].counters).to.include({ handled: 1, failed: 0, deadLettered: 0 });
    expect(result.stderr).to.equal("payload");
  });

  it("--json: a dead-lettered message is a `deadLettered` event with why", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "unparseable" });
    const result = await runCli([...at(ns), "--json", "worker", "q", "--exec", "exit 100", "--poison-exit", "100", "--until-empty"]);
    expect(result.code, result.stderr).to.equal(0);
    const events = jsonLines(result.stdout);
    expect(events.map((event) => event.event)).to.deep.equal(["started", "deadLettered", "stopped"]);
    expect(events[1]).to.deep.equal({ event: "deadLettered", id, rc: 1, reason: "poison", error: "exit status 100" });
    expect(events[2].counters).to.include({ handled: 0, failed: 1, deadLettered: 1 });
  });

  it("--until-empty waits while the queue is paused (saying so once), and ends after the resume let it handle what was there", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "held" });
    await rsmq.pauseQueueAsync({ qname: "q" });
    const running = startCli([...at(ns), "worker", "q", "--exec", "cat; echo", "--until-empty"]);
    await waitFor(() => running.output().stderr.includes("the queue is paused: waiting for a resume"), "the worker to be held back");
    await rsmq.resumeQueueAsync({ qname: "q" });
    const result = await running.finished;
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.equal("held\n");
    expect(result.stderr.split("the queue is paused")).to.have.length(2);
    expect(result.stderr).to.include("stopped: 1 message handled");
  });

  it("runs until Ctrl-C, woken by realtime sends from other processes, then stops cleanly and ends by SIGINT (status 130)", async () => {
    const running = startCli([...at(ns), "worker", "q", "--exec", "cat; echo"]);
    const producer = new RedisSMQ({ ...connectionOptions(ns), realtime: true });
    try {
      await waitFor(() => running.output().stderr.includes("Ctrl-C to stop"), "the worker to start");
      // The worker subscribes right after its first receive; send until one wakes it (the
      // default idle sleep is 30 s, far beyond this wait).
      await producer.sendMessageAsync({ qname: "q", message: "live one" });
      await waitFor(() => running.output().stdout.includes("live one"), "the message to be handled");
      await waitFor(async () => (await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs === 0, "the message to be deleted");
    } finally {
      await producer.quitAsync();
    }
    running.child.kill("SIGINT");
    const result = await running.finished;
    expect([result.code, result.signal], result.stderr).to.deep.equal([null, "SIGINT"]);
    expect(result.stderr).to.include("stopped: 1 message handled");
  });

  it("--max-idle-sleep bounds the wait for a message from a process without realtime", async () => {
    const running = startCli([...at(ns), "worker", "q", "--exec", "cat; echo", "--max-idle-sleep", "100"]);
    await waitFor(() => running.output().stderr.includes("Ctrl-C to stop"), "the worker to start");
    await rsmq.sendMessageAsync({ qname: "q", message: "quiet one" });
    await waitFor(() => running.output().stdout.includes("quiet one"), "the message to be handled");
    running.child.kill("SIGTERM");
    const result = await running.finished;
    expect([result.code, result.signal], result.stderr).to.deep.equal([null, "SIGTERM"]);
    expect(result.stderr).to.include("stopped: 1 message handled");
  });

  it("exits 1 for a missing queue and 2 without --exec or with a bad --concurrency", async () => {
    const [missing, noExec, badConcurrency] = await Promise.all([
      runCli([...at(ns), "worker", "nope", "--exec", "cat"]),
      worker(),
      worker("--exec", "cat", "--concurrency", "0"),
    ]);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.include('queue "nope" does not exist');
    expect(noExec.code).to.equal(2);
    expect(noExec.stderr).to.include("required option '--exec <command>' not specified");
    expect(badConcurrency.code).to.equal(2);
  });
});
