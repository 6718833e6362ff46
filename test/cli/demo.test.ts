/**
 * `rsmq-next demo` end to end, on a shortened timeline (RSMQ_NEXT_DEMO_SCALE): its summary must
 * add up (handled + dead-lettered = sent, the retries the Worker counted = the redeliveries the
 * server counted), the idle Worker must cost fewer commands than the rsmq 0.12.4-style poll, whose
 * count must be exactly its per-poll sequence times the polls; and it must leave nothing behind.
 */
import { expect } from "chai";
import { mkdtempSync, rmSync } from "fs";
import { tmpdir } from "os";
import * as path from "path";
import { perHourAtCap } from "../../lib/cli/demo/idle-cycle";
import { demoPlan } from "../../lib/cli/demo/plan";
import { DEFAULT_MAX_IDLE_SLEEP_MS } from "../../lib/worker/worker-option-table";
import { readDoc } from "../support/markdown";
import { plainClient, uniqueNs } from "../support/server";
import { at, json, listening, runCli, startCli, unusedPort } from "../support/cli";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single");

const FAST = { RSMQ_NEXT_DEMO_SCALE: "0.1" };

describe("CLI: demo", function () {
  this.timeout(40_000);

  it("--json: the summary adds up, the idle Worker spends fewer commands than the poll, nothing is left behind", async () => {
    const ns = uniqueNs("demo");
    const result = await runCli([...at(ns), "--json", "demo"], { env: FAST, timeoutMs: 35_000 });
    expect(result.code, result.stderr).to.equal(0);
    const summary = json(result);

    expect(summary).to.include({ ns, qname: "jobs", dlq: "jobs-dlq", throwaway: false, sent: 206, burst: 200, delayed: 5, poison: 1 });
    expect(summary.handled + summary.deadLettered).to.equal(summary.sent);
    expect(summary.deadLettered).to.equal(1);
    expect(summary.deadLetters).to.have.length(1);
    expect(summary.deadLetters[0]).to.include({ reason: "poison", deliveries: 1 });
    // Every 10th burst message fails once, then succeeds.
    expect(summary.retries).to.equal(20);
    expect(summary.deliveries).to.equal(summary.sent + summary.retries);
    // The server's counters and the Worker's own agree.
    expect(summary.workerCounters).to.include({
      handled: summary.handled,
      retried: summary.retries,
      deadLettered: summary.deadLettered,
      errors: 0,
    });

    const { worker, rsmqPoll } = summary.idle;
    expect(rsmqPoll.polls).to.be.above(0);
    expect(worker.commands).to.be.below(rsmqPoll.commands);
    // The idle Worker polls once per cap: its window is one whole idle cycle, which holds exactly
    // one poll (a look or a receive: one script, EVALSHA_RO or EVALSHA, its script loaded
    // beforehand), so the projection per hour counts it at its real rate.
    expect(worker.capMs).to.equal(3000);
    expect(worker.looks + worker.receives).to.equal(1);
    // A look is EVALSHA_RO, or EVALSHA when it carries the Worker's heartbeat (each look of an idle Worker does).
    expect((worker.byCommand.evalsha_ro ?? 0) + (worker.byCommand.evalsha ?? 0), JSON.stringify(worker.byCommand)).to.equal(1);
    expect(worker.byCommand).not.to.have.property("eval");
    expect(worker.byCommand).not.to.have.property("eval_ro");
    // The wake subscription's health check rides that poll: one PING. So the instance sent 2.
    expect(worker.byCommand.ping).to.equal(1);
    expect(worker.sent).to.equal(2);
    // A whole cycle, from the sleep at the cap to its poll (the window itself starts a moment
    // after the sleep, later on a loaded machine).
    expect(worker.cycleMs).to.be.within(worker.capMs - 500, worker.capMs + 2000);
    // Per hour: the cycle's count times the cycles an hour holds (one per cap), as the README's
    // 240/h is 2 per 30 s cap; the window, a moment shorter than the cycle, would read a little more.
    expect(worker.sentPerHour).to.equal((2 * 3_600_000) / worker.capMs);
    expect(worker.perHour).to.equal(Math.round((worker.commands * 3_600_000) / worker.capMs));
    expect(rsmqPoll.perHour).to.equal(Math.round((rsmqPoll.commands * 3_600_000) / rsmqPoll.ms));
    // What the poll sent (MULTI HMGET TIME EXEC EVALSHA each time), as the README counts rsmq's.
    expect(rsmqPoll.sent).to.equal(5 * rsmqPoll.polls);
    expect(rsmqPoll.sentPerHour).to.equal(Math.round((rsmqPoll.sent * 3_600_000) / rsmqPoll.ms));
    // Measured, not assumed: per poll MULTI HMGET TIME EXEC EVALSHA, and the ZRANGEBYSCORE its script runs.
    expect(rsmqPoll.byCommand).to.deep.equal({
      multi: rsmqPoll.polls,
      hmget: rsmqPoll.polls,
      time: rsmqPoll.polls,
      exec: rsmqPoll.polls,
      evalsha: rsmqPoll.polls,
      zrangebyscore: rsmqPoll.polls,
    });
    expect(rsmqPoll.commands).to.equal(6 * rsmqPoll.polls);
    expect(summary.busy.commands).to.be.above(summary.sent);

    // The timeline went to stderr, the summary alone to stdout.
    expect(result.stderr).to.include("sent 200 messages at once");
    expect(result.stderr).to.include("all 206 done: 205 handled (20 after a retry), 1 dead-lettered");

    const client = await plainClient();
    try {
      expect(await client.keys(`${ns}:*`)).to.deep.equal([]);
    } finally {
      await client.quit();
    }
  });

  it("at its real scale the idle Worker's figure is the README's: 2 sent per cycle of the default 30 s cap", () => {
    const plan = demoPlan(1);
    expect(plan.idleCapMs).to.equal(DEFAULT_MAX_IDLE_SLEEP_MS);
    const row = /^\| Redis commands an hour, one idle consumer: [^|]*\| ([\d,]+) \| ([\d,]+) \|/m.exec(readDoc("README.md"));
    expect(row, "the README's idle row").to.not.equal(null);
    expect(perHourAtCap(2, plan.idleCapMs)).to.equal(Number(row![2].replace(/,/g, "")));
  });

  it("RSMQ_NS in the environment (the user's real namespace) is left alone: the demo works in one of its own", async () => {
    const users = uniqueNs("users");
    const withoutNs = at(users).slice(0, -2); // the same server, no --ns on the command line
    const result = await runCli([...withoutNs, "--json", "demo"], { env: { ...FAST, RSMQ_NS: users }, timeoutMs: 35_000 });
    expect(result.code, result.stderr).to.equal(0);
    const summary = json(result);
    expect(summary.ns).to.match(/^rsmq-next-demo-[0-9a-f]{6}$/);
    expect(summary.handled + summary.deadLettered).to.equal(summary.sent);
    const client = await plainClient();
    try {
      expect(await client.keys(`${summary.ns}:*`)).to.deep.equal([]);
    } finally {
      await client.quit();
    }
  });

  it("starts a throwaway redis-server when nothing answers, prints the summary for people, and stops the server", async () => {
    const port = await unusedPort();
    const result = await runCli(["--url", `redis://127.0.0.1:${port}`, "demo"], { env: FAST, timeoutMs: 35_000 });
    expect(result.code, result.stderr).to.equal(0);
    const match =
      /nothing answers at redis:\/\/127\.0\.0\.1:\d+ \(connection refused\): started a throwaway redis-server on port (\d+), stopped at the end/.exec(
        result.stdout,
      );
    expect(match, result.stdout).to.not.equal(null);
    expect(result.stdout).to.include("Summary (measured on the server");
    expect(result.stdout).to.match(/^ {2}messages sent +206 +200 in a burst, 5 delayed, 1 poison$/m);
    expect(result.stdout).to.match(/^ {2}handled +205 /m);
    expect(result.stdout).to.match(/^ {2}retries +20 /m);
    expect(result.stdout).to.match(/^ {2}dead-lettered +1 +poison: /m);
    // The figures the README's table gives: the commands each consumer sends, per hour; at this
    // scale the cap is 3 s, so the Worker's 2 per cycle are 2,400 an hour (240 at the real 30 s).
    expect(result.stdout).to.include("Redis commands sent while idle, per hour as the README counts them");
    expect(result.stdout).to.match(
      /^ {2}rsmq-next Worker +2 +~2,400\/h +one idle cycle \(a poll per 3s cap\): the poll's script and the wake subscription's PING; \d+ on the server, with what its script ran inside \(~[\d,]+\/h\): /m,
    );
    expect(result.stdout).to.match(
      /^ {2}100 ms poll, rsmq 0\.12\.4 style +\d+ +~[\d,]+\/h +\d+ polls of MULTI HMGET TIME EXEC EVALSHA in \d+(\.\d)?s; \d+ on the server, with what its script ran inside \(~[\d,]+\/h\): /m,
    );
    expect(result.stdout).not.to.include("\x1b[");
    expect(await listening(Number(match![1]))).to.equal(false);
  });

  it("SIGTERM: stops, deletes its queues, says so without an error, and ends by SIGTERM (status 143)", async () => {
    const ns = uniqueNs("demo");
    const running = startCli([...at(ns), "demo"], { env: FAST, timeoutMs: 35_000 });
    await waitFor(() => running.output().stdout.includes("sent 200 messages at once"), "the burst to be sent");
    running.child.kill("SIGTERM");
    const result = await running.finished;
    expect([result.code, result.signal], result.stderr).to.deep.equal([null, "SIGTERM"]);
    expect(result.stderr).to.include("demo interrupted: its queues were deleted");
    expect(result.stderr).not.to.include("error:");
    expect(result.stdout).not.to.include("Summary");
    const client = await plainClient();
    try {
      expect(await client.keys(`${ns}:*`)).to.deep.equal([]);
    } finally {
      await client.quit();
    }
  });

  it("says exactly how to get a Redis when none answers and there is no redis-server to start", async () => {
    const emptyPath = mkdtempSync(path.join(tmpdir(), "no-redis-"));
    try {
      const port = await unusedPort();
      const result = await runCli(["--url", `redis://127.0.0.1:${port}`, "demo"], { env: { ...FAST, PATH: emptyPath } });
      expect(result.code).to.equal(1);
      expect(result.stderr).to.include(
        `no Redis answers at redis://127.0.0.1:${port} (connection refused), and there is no redis-server on PATH to start one`,
      );
      expect(result.stderr).to.include("sudo apt-get install redis-server");
      expect(result.stderr).to.include("brew install redis");
      expect(result.stderr).to.include("docker run --rm -p 6379:6379 redis:7");
    } finally {
      rmSync(emptyPath, { recursive: true, force: true });
    }
  });
});
