/**
 * The command line's concurrency limit and consumers against the test server (docs/cli.md):
 * `concurrency <qname> <max>`, `--remove`, and without either what is set; `consumers <qname>`
 * (a table, or --json); and `stats` showing the limit, what is leased of it and the consumers, in
 * human and --json output. Bad arguments exit 2 before anything is written; a missing queue exits 1.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { beatJson, lookAndBeat } from "../../lib/operations/consumer-beat";
import { at, json } from "../support/cli";
import { exactState } from "../support/state";
import { runsOn } from "../support/targets";
import { cliQueue } from "../support/cli-queue";

// One server: the scripts run on the cluster in test/operations/, and the command's cluster
// connection in the other CLI suites; here it would only repeat processes.
runsOn("single");

describe("CLI: concurrency, consumers, and stats showing them", () => {
  const fixture = cliQueue("cli-fleet");
  const cli = fixture.cli;
  let ns: string, rsmq: RedisSMQ, client: RedisClientType;
  beforeEach(() => ({ ns, rsmq, client } = fixture));
  const beat = (workerId: string, host: string, pid: number, startedAt: number) => {
    const { layout, run } = internalsOf(rsmq);
    return run(() => lookAndBeat(layout, "q", { workerId, json: beatJson(host, pid, 5, startedAt), ttlMs: 60_000 }));
  };

  describe("concurrency", () => {
    it("<max> sets it; without arguments it shows it with what is leased; --remove removes (human and --json)", async () => {
      const set = await cli("concurrency", "q", "3");
      expect([set.code, set.stdout], set.stderr).to.deep.equal([0, "queue q: at most 3 in flight with rsmq-next consumers\n"]);
      expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).concurrency).to.equal(3);
      await rsmq.sendMessagesAsync({ qname: "q", messages: [{ message: "a" }, { message: "b" }] });
      await rsmq.receiveMessagesAsync({ qname: "q", count: 2, vt: 60 });
      expect((await cli("concurrency", "q")).stdout).to.equal("concurrency  2 of 3 in flight (leased)\n");
      expect(json(await cli("--json", "concurrency", "q"))).to.deep.equal({ qname: "q", concurrency: 3, leased: 2 });
      expect(json(await cli("--json", "concurrency", "q", "10000"))).to.deep.equal({ qname: "q", concurrency: 10_000 });
      const removed = await cli("concurrency", "q", "--remove");
      expect([removed.code, removed.stdout], removed.stderr).to.deep.equal([0, "removed the concurrency limit of queue q\n"]);
      expect(await rsmq.getQueueAttributesAsync({ qname: "q" })).not.to.have.property("concurrency");
      expect(json(await cli("--json", "concurrency", "q", "--remove"))).to.deep.equal({ qname: "q", removed: false });
      expect((await cli("concurrency", "q", "--remove")).stdout).to.equal("queue q had no concurrency limit\n");
      expect((await cli("concurrency", "q")).stdout).to.equal("queue q has no concurrency limit\n");
      expect(json(await cli("--json", "concurrency", "q"))).to.deep.equal({ qname: "q", concurrency: null, leased: null });
    });

    it("bad arguments exit 2 saying what was expected, and write nothing; a missing queue exits 1", async () => {
      const before = await exactState(client, ns);
      const cases = [
        [["concurrency", "q", "0"], "Expected an integer from 1 to 10000"],
        [["concurrency", "q", "10001"], "Expected an integer from 1 to 10000"],
        [["concurrency", "q", "1.5"], "Expected an integer from 1 to 10000"],
        [["concurrency", "q", "many"], "Expected an integer from 1 to 10000"],
        [["concurrency", "q", "3", "--remove"], "give either <max> or --remove"],
        [["concurrency", "bad name", "3"], "invalid queue name"],
      ] as const;
      const results = await Promise.all(cases.map(([args]) => cli(...args)));
      cases.forEach(([args, message], i) => {
        expect(results[i].code, `${args.join(" ")}: ${results[i].stderr}`).to.equal(2);
        expect(results[i].stderr, args.join(" ")).to.include(message);
      });
      expect(await exactState(client, ns)).to.deep.equal(before);
      for (const args of [
        ["concurrency", "nope", "3"],
        ["concurrency", "nope", "--remove"],
        ["concurrency", "nope"],
        ["consumers", "nope"],
      ]) {
        const missing = await cli(...args);
        expect([missing.code, missing.stderr.includes('queue "nope" does not exist')], missing.stderr).to.deep.equal([1, true]);
      }
    });
  });

  describe("consumers", () => {
    it("lists the live Workers, oldest first: a table (human), listConsumersAsync's entries (--json); none says so", async () => {
      expect((await cli("consumers", "q")).stdout).to.equal(
        "no Worker consumes queue q (a Worker is listed from its first look at the queue)\n",
      );
      expect(json(await cli("--json", "consumers", "q"))).to.deep.equal([]);
      await beat("bbbbbbbbbbbbbbbb", "host-two", 202, Date.UTC(2026, 11, 6, 9));
      await beat("aaaaaaaaaaaaaaaa", "host-one", 101, Date.UTC(2026, 11, 6, 8));
      const [human, machine] = await Promise.all([cli("consumers", "q"), cli("--json", "consumers", "q")]);
      const lines = human.stdout.trimEnd().split("\n");
      expect(lines[0].split(/\s{2,}/)).to.deep.equal(["ID", "HOST", "PID", "CONCURRENCY", "STARTED", "LAST SEEN"]);
      expect(lines.slice(1).map((line) => line.split(/\s{2,}/).slice(0, 5))).to.deep.equal([
        ["aaaaaaaaaaaaaaaa", "host-one", "101", "5", "2026-12-06 08:00:00 UTC"],
        ["bbbbbbbbbbbbbbbb", "host-two", "202", "5", "2026-12-06 09:00:00 UTC"],
      ]);
      for (const line of lines.slice(1)) expect(line).to.match(/ (\d+ms|\d+(\.\d)?s) ago$/);
      expect(json(machine)).to.deep.equal(await rsmq.listConsumersAsync({ qname: "q" }));
    });
  });

  describe("stats", () => {
    it("an untouched queue: no concurrency line nor field, 0 consumers", async () => {
      const [human, machine] = await Promise.all([cli("stats", "q"), cli("--json", "stats", "q")]);
      expect(human.stdout).not.to.match(/^concurrency /m);
      expect(human.stdout).to.match(/^consumers {3}0$/m);
      const stats = json(machine);
      for (const field of ["concurrency", "leased"]) expect(stats).not.to.have.property(field);
      expect(stats.consumers).to.equal(0);
    });

    it("shows the limit with what is leased and the live consumers (human), as attributes report them (--json)", async () => {
      await rsmq.setConcurrencyAsync({ qname: "q", max: 4 });
      await rsmq.sendMessageAsync({ qname: "q", message: "held" });
      await rsmq.receiveMessageAsync({ qname: "q", vt: 60 });
      await beat("aaaaaaaaaaaaaaaa", "host-one", 101, 1000);
      const [human, machine] = await Promise.all([cli("stats", "q"), cli("--json", "stats", "q")]);
      const lines = human.stdout.split("\n");
      expect(lines).to.include("concurrency  1 of 4 in flight (leased)");
      expect(lines).to.include("consumers    1");
      const { concurrency, leased } = await rsmq.getQueueAttributesAsync({ qname: "q" });
      expect(json(machine)).to.deep.include({ concurrency, leased, consumers: 1 });
    });
  });
});
