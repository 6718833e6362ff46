/**
 * The command line's queue commands against the test server: queues, create, delete-queue, purge
 * and stats (also --watch), in human and --json output, with their exit codes.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, uniqueNs } from "../support/server";
import { at, json, jsonLines, runCli, startCli } from "../support/cli";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

describe("CLI: queues, create, delete-queue, purge, stats", () => {
  let ns: string;
  let rsmq: RedisSMQ;

  beforeEach(() => {
    ns = uniqueNs("cli");
    rsmq = new RedisSMQ(connectionOptions(ns));
  });
  afterEach(() => rsmq.quitAsync());

  const cli = (...args: string[]) => runCli([...at(ns), ...args]);

  describe("queues", () => {
    it("says so when the namespace has no queues (human: a sentence; --json: [])", async () => {
      const [human, machine] = await Promise.all([cli("queues"), cli("--json", "queues")]);
      expect(human.code).to.equal(0);
      expect(human.stdout).to.equal(`no queues in namespace "${ns}"\n`);
      expect(machine.code).to.equal(0);
      expect(json(machine)).to.deep.equal([]);
    });

    it("lists the queues sorted, with total, visible and hidden counts and the counters", async () => {
      await rsmq.createQueueAsync({ qname: "b" });
      await rsmq.createQueueAsync({ qname: "a" });
      await rsmq.sendMessageAsync({ qname: "a", message: "1" });
      await rsmq.sendMessageAsync({ qname: "a", message: "2" });
      await rsmq.sendMessageAsync({ qname: "a", message: "later", delay: 100 });
      await rsmq.receiveMessageAsync({ qname: "a" });

      const [machine, human] = await Promise.all([cli("--json", "queues"), cli("queues")]);
      expect(machine.code).to.equal(0);
      expect(json(machine)).to.deep.equal([
        { qname: "a", msgs: 3, visible: 1, hidden: 2, totalsent: 3, totalrecv: 1 },
        { qname: "b", msgs: 0, visible: 0, hidden: 0, totalsent: 0, totalrecv: 0 },
      ]);

      expect(human.code).to.equal(0);
      expect(human.stdout.split("\n")).to.deep.equal([
        "QUEUE  MSGS  VISIBLE  HIDDEN  SENT  RECEIVED",
        "a         3        1       2     3         1",
        "b         0        0       0     0         0",
        "",
      ]);
    });
  });

  describe("create", () => {
    it("creates a queue with the defaults and says so (human)", async () => {
      const result = await cli("create", "jobs");
      expect(result.code).to.equal(0);
      expect(result.stdout).to.equal("created queue jobs (vt 30s, delay 0s, maxsize 65536)\n");
      const attributes = await rsmq.getQueueAttributesAsync({ qname: "jobs" });
      expect([attributes.vt, attributes.delay, attributes.maxsize]).to.deep.equal([30, 0, 65536]);
    });

    it("takes --vt, --delay and --maxsize (--json reports the stored settings)", async () => {
      const result = await cli("--json", "create", "jobs", "--vt", "45", "--delay", "2", "--maxsize", "-1");
      expect(result.code).to.equal(0);
      expect(json(result)).to.deep.equal({ qname: "jobs", created: true, vt: 45, delay: 2, maxsize: -1, retention: 0 });
      const attributes = await rsmq.getQueueAttributesAsync({ qname: "jobs" });
      expect([attributes.vt, attributes.delay, attributes.maxsize]).to.deep.equal([45, 2, -1]);
    });

    it("takes --retention and --expire-to, and says so", async () => {
      const result = await cli("create", "jobs", "--retention", "1209600", "--expire-to", "jobs-expired");
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stdout).to.equal("created queue jobs (vt 30s, delay 0s, maxsize 65536, retention 1209600s, expired to jobs-expired)\n");
      expect(await rsmq.getQueueAttributesAsync({ qname: "jobs" })).to.include({ retention: 1209600, expireTo: "jobs-expired" });
    });

    it("fails with exit code 1 when the queue exists, naming it and the namespace", async () => {
      await rsmq.createQueueAsync({ qname: "jobs" });
      const result = await cli("create", "jobs");
      expect(result.code).to.equal(1);
      expect(result.stdout).to.equal("");
      expect(result.stderr).to.include(`queue "jobs" already exists in namespace "${ns}"`);
    });

    it("rejects bad arguments with exit code 2, saying what was expected, and creates nothing", async () => {
      const cases = [
        [["create", "jobs", "--vt", "soon"], "argument 'soon' is invalid. Expected an integer from 0 to 9999999"],
        [["create", "jobs", "--delay", "-1"], "Expected an integer from 0 to 9999999"],
        [["create", "jobs", "--maxsize", "100"], "Expected -1 (unlimited) or an integer from 1024 to 65536"],
        [["create", "no spaces"], 'invalid queue name "no spaces"'],
        [["create", "QUEUES"], '"QUEUES" is reserved for the queue list'],
        [["create"], "missing required argument 'qname'"],
        [["create", "jobs", "--retention", "1.5"], "Expected an integer from 0 to 9999999"],
        [["create", "jobs", "--expire-to", "jobs"], "expireTo must name another queue than qname"],
        [["create", "jobs", "--expire-to", "no spaces"], "Invalid expireTo format"],
      ] as const;
      const results = await Promise.all(cases.map(([args]) => cli(...args)));
      cases.forEach(([args, message], i) => {
        expect(results[i].code, `${args.join(" ")}: ${results[i].stderr}`).to.equal(2);
        expect(results[i].stderr, args.join(" ")).to.include(message);
      });
      expect(await rsmq.listQueuesAsync()).to.deep.equal([]);
    });
  });

  describe("set", () => {
    it("changes the settings it is given and prints them all (human and --json)", async () => {
      await rsmq.createQueueAsync({ qname: "jobs" });
      const human = await cli("set", "jobs", "--vt", "5", "--retention", "3600");
      expect(human.code, human.stderr).to.equal(0);
      expect(human.stdout).to.equal("changed queue jobs (vt 5s, delay 0s, maxsize 65536, retention 3600s)\n");
      const machine = await cli("--json", "set", "jobs", "--expire-to", "audit", "--maxsize", "-1");
      expect(json(machine)).to.deep.equal({ qname: "jobs", vt: 5, delay: 0, maxsize: -1, retention: 3600, expireTo: "audit" });
      const cleared = await cli("--json", "set", "jobs", "--retention", "0", "--expire-to", "");
      expect(json(cleared)).to.deep.equal({ qname: "jobs", vt: 5, delay: 0, maxsize: -1, retention: 0 });
    });

    it("exits 2 with nothing to change or a bad value, and 1 for a missing queue; nothing is written", async () => {
      await rsmq.createQueueAsync({ qname: "jobs" });
      const before = await rsmq.getQueueAttributesAsync({ qname: "jobs" });
      const [none, bad, missing] = await Promise.all([
        cli("set", "jobs"),
        cli("set", "jobs", "--retention", "-5"),
        cli("set", "nope", "--vt", "1"),
      ]);
      expect(none.code).to.equal(2);
      expect(none.stderr).to.include("Nothing to change");
      expect(bad.code).to.equal(2);
      expect(bad.stderr).to.include("Expected an integer from 0 to 9999999");
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.include(`queue "nope" does not exist in namespace "${ns}"`);
      expect(await rsmq.getQueueAttributesAsync({ qname: "jobs" })).to.deep.equal(before);
    });
  });

  describe("delete-queue", () => {
    it("deletes the queue and its messages, saying how many (human and --json)", async () => {
      await rsmq.createQueueAsync({ qname: "a" });
      await rsmq.createQueueAsync({ qname: "b" });
      await rsmq.sendMessageAsync({ qname: "a", message: "1" });
      await rsmq.sendMessageAsync({ qname: "a", message: "2" });

      const human = await cli("delete-queue", "a");
      expect(human.code).to.equal(0);
      expect(human.stdout).to.equal("deleted queue a and its 2 messages\n");
      expect(await rsmq.listQueuesAsync()).to.deep.equal(["b"]);

      const machine = await cli("--json", "delete-queue", "b");
      expect(machine.code).to.equal(0);
      expect(json(machine)).to.deep.equal({ qname: "b", deleted: true, messages: 0 });
      expect(await rsmq.listQueuesAsync()).to.deep.equal([]);
    });

    it("fails with exit code 1 for a missing queue, with a hint", async () => {
      const result = await cli("delete-queue", "nope");
      expect(result.code).to.equal(1);
      expect(result.stderr).to.include(`queue "nope" does not exist in namespace "${ns}"`);
      expect(result.stderr).to.include("rsmq-next queues");
    });
  });

  describe("purge", () => {
    beforeEach(async () => {
      await rsmq.createQueueAsync({ qname: "a", vt: 45 });
      await rsmq.sendMessageAsync({ qname: "a", message: "1" });
      await rsmq.sendMessageAsync({ qname: "a", message: "2", delay: 100 });
      await rsmq.receiveMessageAsync({ qname: "a" });
    });
    const attributes = () => rsmq.getQueueAttributesAsync({ qname: "a" });

    it("with --yes removes every message and keeps the queue, saying how many (human and --json)", async () => {
      const human = await cli("purge", "a", "--yes");
      expect(human.code, human.stderr).to.equal(0);
      expect(human.stdout).to.equal("purged queue a: removed 2 messages\n");
      expect(await attributes()).to.include({ vt: 45, totalsent: 2, totalrecv: 1, msgs: 0 });

      await rsmq.sendMessageAsync({ qname: "a", message: "3" });
      const machine = await cli("--json", "purge", "a", "-y");
      expect(machine.code, machine.stderr).to.equal(0);
      expect(json(machine)).to.deep.equal({ qname: "a", purged: true, removed: 1 });
      expect(await rsmq.listQueuesAsync()).to.deep.equal(["a"]);
    });

    it("without a terminal and without --yes refuses (exit code 2), removing nothing", async () => {
      const result = await cli("purge", "a");
      expect(result.code).to.equal(2);
      expect(result.stdout).to.equal("");
      expect(result.stderr).to.include('purge asks before it removes the messages of "a", and stdin is not a terminal');
      expect(result.stderr).to.include("add --yes");
      expect((await attributes()).msgs).to.equal(2);
    });

    it("fails with exit code 1 for a missing queue, and 2 for a bad name", async () => {
      const [missing, bad] = await Promise.all([cli("purge", "nope", "--yes"), cli("purge", "bad name", "--yes")]);
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.include(`queue "nope" does not exist in namespace "${ns}"`);
      expect(bad.code).to.equal(2);
      expect(bad.stderr).to.include('invalid queue name "bad name"');
    });
  });

  describe("stats", () => {
    /** One visible, one in flight (received), one delayed message. */
    async function threeStates(): Promise<void> {
      await rsmq.createQueueAsync({ qname: "q", vt: 60 });
      await rsmq.sendMessageAsync({ qname: "q", message: "taken" });
      await rsmq.receiveMessageAsync({ qname: "q" });
      await rsmq.sendMessageAsync({ qname: "q", message: "waiting" });
      await rsmq.sendMessageAsync({ qname: "q", message: "later", delay: 100 });
    }

    it("--json: settings, counters, and visible / in flight / delayed counts with the next due time", async () => {
      await threeStates();
      const result = await cli("--json", "stats", "q");
      expect(result.code).to.equal(0);
      const stats = json(result);
      expect(stats).to.include({
        qname: "q",
        vt: 60,
        delay: 0,
        maxsize: 65536,
        totalsent: 3,
        totalrecv: 1,
        msgs: 3,
        visible: 1,
        inFlight: 1,
        delayed: 1,
        partial: false,
      });
      // The in-flight message is due again after vt (60 s), before the delayed one (100 s).
      expect(stats.nextDueMs).to.be.within(50_000, 60_000);
      expect(stats.waitingMs).to.be.at.least(0);
      expect(stats.created).to.equal(stats.modified);
    });

    it("human: the same numbers as aligned fields", async () => {
      await threeStates();
      const result = await cli("stats", "q");
      expect(result.code).to.equal(0);
      const lines = result.stdout.split("\n");
      expect(lines[0]).to.equal(`queue       q  (namespace ${ns})`);
      expect(lines[1]).to.equal("messages    3: 1 visible, 1 in flight, 1 delayed");
      expect(lines[2]).to.match(/^next due {4}in \d+(\.\d)?s$/);
      expect(lines).to.include.members(["sent        3", "received    1", "settings    vt 60s, delay 0s, maxsize 65536"]);
    });

    it("says '-' for no next due time on an empty queue", async () => {
      await rsmq.createQueueAsync({ qname: "q" });
      const [machineResult, human] = await Promise.all([cli("--json", "stats", "q"), cli("stats", "q")]);
      expect(json(machineResult)).to.include({ msgs: 0, visible: 0, inFlight: 0, delayed: 0, nextDueMs: null, waitingMs: null });
      expect(human.stdout).to.include("next due    -\n");
    });

    it("shows the retention and where expired messages go, in text and --json; a queue without them says so", async () => {
      await rsmq.createQueueAsync({ qname: "q", retention: 3600, expireTo: "q-expired" });
      await rsmq.createQueueAsync({ qname: "plain" });
      const [machine, human, plainMachine, plainHuman] = await Promise.all([
        cli("--json", "stats", "q"),
        cli("stats", "q"),
        cli("--json", "stats", "plain"),
        cli("stats", "plain"),
      ]);
      expect(json(machine)).to.include({ retention: 3600, expireTo: "q-expired" });
      expect(human.stdout.split("\n")).to.include("settings    vt 30s, delay 0s, maxsize 65536, retention 3600s, expired to q-expired");
      expect(json(plainMachine)).to.include({ retention: 0 });
      expect(json(plainMachine)).not.to.have.property("expireTo");
      expect(plainHuman.stdout.split("\n")).to.include("settings    vt 30s, delay 0s, maxsize 65536");
    });

    it("fails with exit code 1 for a missing queue", async () => {
      const result = await cli("stats", "nope");
      expect(result.code).to.equal(1);
      expect(result.stderr).to.include(`queue "nope" does not exist`);
    });

    it("--watch --json prints one JSON line per refresh, with rates, until Ctrl-C (then ends by SIGINT: status 130)", async () => {
      await rsmq.createQueueAsync({ qname: "q" });
      const watching = startCli([...at(ns), "--json", "stats", "q", "--watch", "--interval", "0.1"]);
      await waitFor(() => jsonLines(watching.output().stdout).length >= 2, "two refreshes");
      await rsmq.sendMessageAsync({ qname: "q", message: "new" });
      await waitFor(() => jsonLines(watching.output().stdout).some((line) => line.msgs === 1), "a refresh that sees the new message");
      watching.child.kill("SIGINT");
      const result = await watching.finished;
      expect([result.code, result.signal], result.stderr).to.deep.equal([null, "SIGINT"]);
      const lines = jsonLines(result.stdout);
      expect(lines[0]).to.include({ qname: "q", msgs: 0 });
      expect(lines[0]).not.to.have.property("sentPerSecond");
      expect(lines[1]).to.have.property("sentPerSecond").that.is.a("number");
      expect(lines[lines.length - 1]).to.include({ msgs: 1, totalsent: 1 });
    });
  });
});
