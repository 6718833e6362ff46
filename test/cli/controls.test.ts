/**
 * The command line's queue controls against the test server (docs/cli.md, docs/fleet-controls.md):
 * `pause` (--until, --hard) and `resume`, `rate-limit` (--limit, --mode, --remove, --block, and
 * without options: what is set), and `stats` showing them, in human and --json output. Bad
 * arguments exit 2 before anything is written; a missing queue exits 1. The parsers of the
 * arguments (durations, times, `<max>/<per>[+<burst>]`) are checked on their own first.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { collect, formatLimit, limit, untilTime } from "../../lib/cli/control-arguments";
import { keysOf } from "../support/server";
import { waitFor } from "../support/worker";
import { at, json } from "../support/cli";
import { exactState } from "../support/state";
import { runsOn } from "../support/targets";
import { cliQueue } from "../support/cli-queue";

// One server: the controls' scripts run on the cluster in test/operations/ and test/gates/, and
// the command's cluster connection in the other CLI suites; here it would only repeat 40 s of processes.
runsOn("single");

describe("CLI: the arguments of pause and rate-limit", () => {
  it("--until: a duration from now, epoch ms, or an ISO time; anything else is refused", () => {
    const now = 1_800_000_000_000;
    expect(untilTime("10m", now)).to.equal(now + 600_000);
    expect(untilTime("1.5s", now)).to.equal(now + 1500);
    expect(untilTime("1800000000500", now)).to.equal(1_800_000_000_500);
    expect(untilTime("2027-01-15T18:00:00Z", now)).to.equal(Date.UTC(2027, 0, 15, 18));
    for (const bad of ["soon", "-5m", "0s", "12", "2027-13-45", ""])
      expect(() => untilTime(bad, now), bad).to.throw(/Expected an ISO time/);
  });

  it("--limit: <max>/<per>[+<burst>], printed back in the same syntax", () => {
    expect(limit("10/1s")).to.deep.equal({ max: 10, perMs: 1000, burst: 0 });
    expect(limit("100/1m+20")).to.deep.equal({ max: 100, perMs: 60_000, burst: 20 });
    expect(limit("5/s")).to.deep.equal({ max: 5, perMs: 1000, burst: 0 });
    expect(limit("3/250ms")).to.deep.equal({ max: 3, perMs: 250, burst: 0 });
    expect(collect(limit)("1/h", [limit("2/d")])).to.deep.equal([
      { max: 2, perMs: 86_400_000, burst: 0 },
      { max: 1, perMs: 3_600_000, burst: 0 },
    ]);
    for (const bad of ["0/1s", "10", "10/", "10/1x", "10/1s+", "10/1s+-1", "a/1s", "10/0s", "1.5/1s"]) {
      expect(() => limit(bad), bad).to.throw(/Expected <max>\/<per>\[\+<burst>\]/);
    }
    expect(["10/1s", "100/1m+20", "3/250ms", "7/1500ms", "1/2h"].map((text) => formatLimit(limit(text)))).to.deep.equal([
      "10/1s",
      "100/1m+20",
      "3/250ms",
      "7/1500ms",
      "1/2h",
    ]);
  });
});

describe("CLI: pause, resume, rate-limit, and stats showing them", () => {
  const fixture = cliQueue("cli-controls");
  const cli = fixture.cli;
  let ns: string, rsmq: RedisSMQ, client: RedisClientType;
  beforeEach(() => ({ ns, rsmq, client } = fixture));
  const attributes = () => rsmq.getQueueAttributesAsync({ qname: "q" });

  describe("pause and resume", () => {
    it("pause: rsmq-next receives take nothing; resume: they take again; each says what it did (human)", async () => {
      await rsmq.sendMessageAsync({ qname: "q", message: "held" });
      const paused = await cli("pause", "q");
      expect([paused.code, paused.stdout], paused.stderr).to.deep.equal([
        0,
        "paused queue q (rsmq-next consumers take nothing; until `rsmq-next resume`)\n",
      ]);
      expect((await attributes()).paused)
        .to.deep.include({ hard: false })
        .and.not.have.property("until");
      expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
      const resumed = await cli("resume", "q");
      expect([resumed.code, resumed.stdout], resumed.stderr).to.deep.equal([0, "resumed queue q\n"]);
      expect(await attributes()).not.to.have.property("paused");
      expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.include({ message: "held" });
      const again = await cli("resume", "q");
      expect([again.code, again.stdout]).to.deep.equal([0, "queue q was not paused\n"]);
    });

    it("--until <duration> --json: { qname, paused, hard, until } with the until the queue holds", async () => {
      const before = Date.now();
      const result = await cli("--json", "pause", "q", "--until", "10m");
      expect(result.code, result.stderr).to.equal(0);
      const answer = json(result);
      expect(answer).to.include({ qname: "q", paused: true, hard: false });
      expect(answer.until).to.be.within(before + 600_000, Date.now() + 600_000);
      expect((await attributes()).paused).to.include({ until: answer.until, hard: false });
      expect(json(await cli("--json", "resume", "q"))).to.deep.equal({ qname: "q", resumed: true });
      expect(json(await cli("--json", "resume", "q"))).to.deep.equal({ qname: "q", resumed: false });
    });

    it("--hard: the scores move out of reach until resume restores them exactly", async () => {
      for (const message of ["a", "b", "c"]) await rsmq.sendMessageAsync({ qname: "q", message });
      const scores = () => client.zRangeWithScores(keysOf(ns, "q").messages, 0, -1);
      const before = await scores();
      const result = await cli("pause", "q", "--hard");
      expect(result.stdout).to.equal("paused queue q (hard: rsmq 0.12.4 consumers see nothing due either; until `rsmq-next resume`)\n");
      expect((await attributes()).paused).to.include({ hard: true });
      expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
      expect((await cli("resume", "q")).stdout).to.equal("resumed queue q\n");
      await waitFor(async () => !(await attributes()).paused, "the restore to end");
      expect(await scores()).to.deep.equal(before);
    });

    it("bad arguments exit 2 saying what was expected, and write nothing; a missing queue exits 1", async () => {
      const before = await exactState(client, ns);
      const cases = [
        [["pause", "q", "--until", "soon"], "Expected an ISO time"],
        [["pause", "q", "--hard", "--until", "10m"], "--hard and --until do not go together"],
        [["pause", "q", "--until", "1000000000000"], "until"],
        [["pause", "bad name"], 'invalid queue name "bad name"'],
        [["resume", "bad name"], 'invalid queue name "bad name"'],
      ] as const;
      const results = await Promise.all(cases.map(([args]) => cli(...args)));
      cases.forEach(([args, message], i) => {
        expect(results[i].code, `${args.join(" ")}: ${results[i].stderr}`).to.equal(2);
        expect(results[i].stderr, args.join(" ")).to.include(message);
      });
      expect(await exactState(client, ns)).to.deep.equal(before);
      for (const args of [
        ["pause", "nope"],
        ["resume", "nope"],
      ]) {
        const missing = await cli(...args);
        expect([missing.code, missing.stderr.includes('queue "nope" does not exist')], missing.stderr).to.deep.equal([1, true]);
      }
    });
  });

  describe("rate-limit", () => {
    it("--limit (repeated, with a burst) --mode pace sets them; without options it shows them; --remove removes", async () => {
      const set = await cli("rate-limit", "q", "--limit", "10/1s+5", "--limit", "100/1m", "--mode", "pace");
      expect([set.code, set.stdout], set.stderr).to.deep.equal([0, "queue q: rate limit 10/1s+5, 100/1m (paced at send)\n"]);
      expect((await attributes()).rateLimit).to.deep.equal({
        mode: "pace",
        limits: [
          { max: 10, perMs: 1000, burst: 5 },
          { max: 100, perMs: 60_000, burst: 0 },
        ],
      });
      const shown = await cli("rate-limit", "q");
      expect(shown.stdout).to.equal("rate limit  10/1s+5, 100/1m (paced at send)\n");
      expect(json(await cli("--json", "rate-limit", "q"))).to.deep.equal({
        qname: "q",
        rateLimit: {
          mode: "pace",
          limits: [
            { max: 10, perMs: 1000, burst: 5 },
            { max: 100, perMs: 60_000, burst: 0 },
          ],
        },
        rateLimitedUntil: null,
      });
      expect((await cli("rate-limit", "q", "--remove")).stdout).to.equal("removed the rate limit of queue q\n");
      expect(await attributes()).not.to.have.property("rateLimit");
      expect(json(await cli("--json", "rate-limit", "q", "--remove"))).to.deep.equal({ qname: "q", removed: false });
      expect((await cli("rate-limit", "q")).stdout).to.equal("queue q has no rate limit\n");
    });

    it("--json --limit: the limits as set, mode receive by default", async () => {
      const result = await cli("--json", "rate-limit", "q", "--limit", "3/s");
      expect(json(result)).to.deep.equal({ qname: "q", rateLimit: { limits: [{ max: 3, perMs: 1000, burst: 0 }], mode: "receive" } });
      expect((await attributes()).rateLimit).to.deep.equal({ limits: [{ max: 3, perMs: 1000, burst: 0 }], mode: "receive" });
    });

    it("--block 30s: receives blocked for 30 s by the server's clock", async () => {
      await rsmq.sendMessageAsync({ qname: "q", message: "held" });
      const before = Date.now();
      const result = await cli("rate-limit", "q", "--block", "30s");
      expect([result.code, result.stdout], result.stderr).to.deep.equal([0, "blocked the receives of queue q for 30s\n"]);
      const until = (await attributes()).rateLimitedUntil!;
      // The server's clock and this one agree within the test's bounds: same machine.
      expect(until).to.be.within(before + 29_000, Date.now() + 31_000);
      expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
      expect(json(await cli("--json", "rate-limit", "q", "--block", "1m"))).to.deep.equal({ qname: "q", blockedMs: 60_000 });
    });

    it("bad arguments exit 2 saying what was expected, and write nothing; a missing queue exits 1", async () => {
      const before = await exactState(client, ns);
      const nine = Array.from({ length: 9 }, () => ["--limit", "1/s"]).flat();
      const cases = [
        [["rate-limit", "q", "--limit", "0/1s"], "Expected <max>/<per>[+<burst>]"],
        [["rate-limit", "q", "--limit", "10/1x"], "Expected <max>/<per>[+<burst>]"],
        [["rate-limit", "q", "--limit", "10/1s", "--remove"], "give one of --limit, --remove and --block"],
        [["rate-limit", "q", "--remove", "--block", "1s"], "give one of --limit, --remove and --block"],
        [["rate-limit", "q", "--mode", "pace"], "--mode goes with --limit"],
        [["rate-limit", "q", "--limit", "1/s", "--mode", "fast"], "Allowed choices are receive, pace"],
        [["rate-limit", "q", "--block", "0s"], "Expected a duration above 0"],
        [["rate-limit", "q", "--block", "soon"], "Expected a duration above 0"],
        [["rate-limit", "q", ...nine], "limits"],
      ] as const;
      const results = await Promise.all(cases.map(([args]) => cli(...args)));
      cases.forEach(([args, message], i) => {
        expect(results[i].code, `${args.join(" ")}: ${results[i].stderr}`).to.equal(2);
        expect(results[i].stderr, args.join(" ")).to.include(message);
      });
      expect(await exactState(client, ns)).to.deep.equal(before);
      for (const args of [
        ["rate-limit", "nope", "--limit", "1/s"],
        ["rate-limit", "nope", "--remove"],
        ["rate-limit", "nope", "--block", "1s"],
      ]) {
        const missing = await cli(...args);
        expect([missing.code, missing.stderr.includes('queue "nope" does not exist')], missing.stderr).to.deep.equal([1, true]);
      }
    });
  });

  describe("receive held back", () => {
    it("says why it took nothing: the pause, then a block; --json carries `blocked`", async () => {
      await rsmq.sendMessageAsync({ qname: "q", message: "held" });
      await rsmq.pauseQueueAsync({ qname: "q" });
      const paused = await cli("receive", "q");
      expect([paused.code, paused.stdout], paused.stderr).to.deep.equal([0, "no message: queue q is paused until resumed\n"]);
      expect(json(await cli("--json", "receive", "q")).blocked).to.deep.equal({ reason: "paused", retryMs: null });
      await rsmq.resumeQueueAsync({ qname: "q" });
      await rsmq.rateLimitQueueAsync({ qname: "q", ms: 600_000 });
      const blocked = await cli("receive", "q");
      expect(blocked.stdout).to.match(
        /^no message: queue q is held back \(its receives are blocked\); the next receive may take one in (9m\d+s|10m0s)\n$/,
      );
      expect(json(await cli("--json", "receive", "q")).blocked).to.include({ reason: "limited", intervalMs: 0 });
      expect(await rsmq.getQueueAttributesAsync({ qname: "q" })).to.include({ msgs: 1, totalrecv: 0 });
    });
  });

  describe("stats", () => {
    it("an untouched queue shows no control (human) and has none of their fields (--json)", async () => {
      const [human, machine] = await Promise.all([cli("stats", "q"), cli("--json", "stats", "q")]);
      expect(human.stdout).not.to.match(/^(paused|rate limit|blocked) /m);
      const stats = json(machine);
      for (const field of ["paused", "rateLimit", "rateLimitedUntil"]) expect(stats).not.to.have.property(field);
    });

    it("shows the pause, the rate limit and a block: one line each (human), as attributes report them (--json)", async () => {
      expect((await cli("pause", "q", "--until", "2h")).code).to.equal(0);
      expect((await cli("rate-limit", "q", "--limit", "10/1s+5", "--limit", "300/1m")).code).to.equal(0);
      expect((await cli("rate-limit", "q", "--block", "5m")).code).to.equal(0);
      const [human, machine] = await Promise.all([cli("stats", "q"), cli("--json", "stats", "q")]);
      const lines = human.stdout.split("\n");
      expect(lines.find((line) => line.startsWith("paused "))).to.match(
        /^paused {6}since .+ UTC \(.+ ago\), until .+ UTC \(in (1h59m\d+s|2h0m0s)\)$/,
      );
      expect(lines).to.include("rate limit  10/1s+5, 300/1m (at receive)");
      expect(lines.find((line) => line.startsWith("blocked "))).to.match(/^blocked {5}receives until .+ UTC \(in \d+m\d+s\)$/);
      const { paused, rateLimit, rateLimitedUntil } = await attributes();
      expect(json(machine)).to.deep.include({ paused, rateLimit, rateLimitedUntil });
    });
  });
});
