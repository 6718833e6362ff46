/**
 * The command line's message commands against the test server: send (argument or stdin, --delay),
 * receive, pop, delete and peek, in human and --json output, with their exit codes.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { subscribersOf, waitFor } from "../support/worker";
import { at, json, runCli } from "../support/cli";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

const ID = /^[a-z0-9]{10}[A-Za-z0-9]{22}$/;

describe("CLI: send, receive, pop, delete, peek", () => {
  let ns: string;
  let rsmq: RedisSMQ;

  beforeEach(async () => {
    ns = uniqueNs("cli");
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => rsmq.quitAsync());

  const cli = (...args: string[]) => runCli([...at(ns), ...args]);

  describe("send", () => {
    it("sends the argument and prints the new id (human)", async () => {
      const result = await cli("send", "q", "hello world");
      expect(result.code).to.equal(0);
      const id = result.stdout.trim();
      expect(id).to.match(ID);
      expect(result.stdout).to.equal(`${id}\n`);
      const received = await rsmq.receiveMessageAsync({ qname: "q" });
      expect(received).to.include({ id, message: "hello world" });
    });

    it("sends stdin when no message is given: multi-line kept, one trailing newline removed", async () => {
      const result = await runCli([...at(ns), "--json", "send", "q"], { input: '{"to":"ada"}\nsecond line\n' });
      expect(result.code).to.equal(0);
      const { qname, id } = json(result);
      expect(qname).to.equal("q");
      expect(id).to.match(ID);
      const received = await rsmq.receiveMessageAsync({ qname: "q" });
      expect(received).to.include({ id, message: '{"to":"ada"}\nsecond line' });
    });

    it("--delay hides the message for that many seconds", async () => {
      const result = await cli("send", "q", "later", "--delay", "60");
      expect(result.code).to.equal(0);
      const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
      expect([attributes.msgs, attributes.hiddenmsgs]).to.deep.equal([1, 1]);
      const next = await rsmq.receiveMessageOrNextDueAsync({ qname: "q" });
      expect(next.status).to.equal("waiting");
    });

    it("fails with exit code 1 for a missing queue, and 2 for a bad --delay", async () => {
      const [missing, bad] = await Promise.all([cli("send", "nope", "x"), cli("send", "q", "x", "--delay", "1.5")]);
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.include('queue "nope" does not exist');
      expect(bad.code).to.equal(2);
      expect(bad.stderr).to.include("Expected an integer from 0 to 9999999");
      expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);
    });

    it("refuses an empty message (exit code 2, naming --allow-empty), from stdin or as the argument, sending nothing", async () => {
      const [emptyPipe, newlineOnly, emptyArgument] = await Promise.all([
        runCli([...at(ns), "send", "q"], { input: "" }),
        runCli([...at(ns), "send", "q"], { input: "\n" }),
        cli("send", "q", ""),
      ]);
      for (const result of [emptyPipe, newlineOnly, emptyArgument]) {
        expect(result.code, result.stderr).to.equal(2);
        expect(result.stdout).to.equal("");
        expect(result.stderr).to.include("--allow-empty");
      }
      expect(emptyPipe.stderr).to.include("the message from stdin is empty");
      expect(emptyArgument.stderr).to.include("the message argument is empty");
      expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).totalsent).to.equal(0);
    });

    it("--allow-empty sends an empty message", async () => {
      const result = await runCli([...at(ns), "--json", "send", "q", "--allow-empty"], { input: "" });
      expect(result.code, result.stderr).to.equal(0);
      const received = await rsmq.receiveMessageAsync({ qname: "q" });
      expect(received).to.include({ id: json(result).id, message: "" });
    });

    it("fails with exit code 1 when the message is longer than the queue's maxsize", async () => {
      await rsmq.createQueueAsync({ qname: "small", maxsize: 1024 });
      const result = await cli("send", "small", "x".repeat(1025));
      expect(result.code).to.equal(1);
      expect(result.stderr).to.include('the message is longer than queue "small" allows');
    });
  });

  describe("receive", () => {
    it("receives a message and leaves it hidden for vt (human: a block with the body and how to delete it)", async () => {
      const id = await rsmq.sendMessageAsync({ qname: "q", message: "line 1\nline 2" });
      const result = await cli("receive", "q");
      expect(result.code).to.equal(0);
      const lines = result.stdout.split("\n");
      expect(lines[0]).to.equal(`id          ${id}`);
      expect(lines[2]).to.equal("received    once");
      expect(lines[3]).to.equal(`hidden for  30s; when done: rsmq-next delete q ${id}`);
      expect(lines[4]).to.equal("message     line 1\\nline 2");
      const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
      expect([attributes.msgs, attributes.hiddenmsgs, attributes.totalrecv]).to.deep.equal([1, 1, 1]);
    });

    it("--json gives the messages as the library returns them; -n takes several; --vt sets the hiding", async () => {
      const ids = [];
      for (const body of ["a", "b", "c"]) ids.push(await rsmq.sendMessageAsync({ qname: "q", message: body }));
      const result = await cli("--json", "receive", "q", "-n", "2", "--vt", "0");
      expect(result.code).to.equal(0);
      const { messages, nextDueMs } = json(result);
      expect(messages.map((m: { id: string; message: string; rc: number }) => [m.id, m.message, m.rc])).to.deep.equal([
        [ids[0], "a", 1],
        [ids[1], "b", 1],
      ]);
      expect(nextDueMs).to.equal(undefined);
      // vt 0: visible again at once.
      expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).hiddenmsgs).to.equal(0);
    });

    it("says when the next message is due, or that the queue is empty (exit code 0 both)", async () => {
      const [empty, emptyJson] = await Promise.all([cli("receive", "q"), cli("--json", "receive", "q")]);
      expect(empty.code).to.equal(0);
      expect(empty.stdout).to.equal("no message: queue q is empty\n");
      expect(json(emptyJson)).to.deep.equal({ messages: [], nextDueMs: null });

      await rsmq.sendMessageAsync({ qname: "q", message: "later", delay: 60 });
      const [waiting, waitingJson] = await Promise.all([cli("receive", "q"), cli("--json", "receive", "q")]);
      expect(waiting.code).to.equal(0);
      expect(waiting.stdout).to.match(/^no message is due; the next one in \d+(\.\d)?s\n$/);
      const { messages, nextDueMs } = json(waitingJson);
      expect(messages).to.deep.equal([]);
      expect(nextDueMs).to.be.within(50_000, 60_000);
    });

    it("--wait prints a message sent by another process while it waits; ends empty with the usual output", async () => {
      const waiting = cli("receive", "q", "--wait", "60");
      const producer = new RedisSMQ({ ...connectionOptions(ns), realtime: true });
      try {
        const client = await plainClient();
        const channel = keysOf(ns, "q").realtimeChannel;
        await waitFor(async () => (await subscribersOf(client, channel)) > 0, "the CLI's subscription", 15_000);
        await client.quit();
        const id = await producer.sendMessageAsync({ qname: "q", message: "worth the wait" });
        const result = await waiting;
        expect(result.code).to.equal(0);
        expect(result.stdout).to.include(id);
        expect(result.stdout).to.include("worth the wait");
        await rsmq.deleteMessageAsync({ qname: "q", id });
      } finally {
        await producer.quitAsync();
      }
      const empty = await cli("receive", "q", "--wait", "1");
      expect(empty.code).to.equal(0);
      expect(empty.stdout).to.equal("no message: queue q is empty\n");
    });

    it("rejects --wait -1, 61 and 1.5 with exit code 2", async () => {
      for (const result of await Promise.all(["-1", "61", "1.5"].map((wait) => cli("receive", "q", "--wait", wait)))) {
        expect(result.code).to.equal(2);
        expect(result.stderr).to.include("Expected an integer from 0 to 60");
      }
    });

    it("rejects -n 0 and -n 1001 with exit code 2", async () => {
      for (const result of await Promise.all(["0", "1001"].map((n) => cli("receive", "q", "-n", n)))) {
        expect(result.code).to.equal(2);
        expect(result.stderr).to.include("Expected an integer from 1 to 1000");
      }
    });
  });

  describe("pop", () => {
    it("receives and deletes the next message (human and --json)", async () => {
      const first = await rsmq.sendMessageAsync({ qname: "q", message: "one" });
      const second = await rsmq.sendMessageAsync({ qname: "q", message: "two" });
      const human = await cli("pop", "q");
      expect(human.code).to.equal(0);
      expect(human.stdout).to.match(new RegExp(`^id +${first}$`, "m"));
      expect(human.stdout).to.match(/^message +one$/m);
      expect(human.stdout).not.to.include("hidden for");
      const machine = json(await cli("--json", "pop", "q"));
      expect(machine.messages).to.have.length(1);
      expect(machine.messages[0]).to.include({ id: second, message: "two", rc: 1 });
      expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);

      const [none, noneJson] = await Promise.all([cli("pop", "q"), cli("--json", "pop", "q")]);
      expect([none.code, none.stdout]).to.deep.equal([0, "no message is due\n"]);
      expect(json(noneJson)).to.deep.equal({ messages: [] });
    });
  });

  describe("delete", () => {
    it("deletes messages by id (exit code 0)", async () => {
      const a = await rsmq.sendMessageAsync({ qname: "q", message: "a" });
      const b = await rsmq.sendMessageAsync({ qname: "q", message: "b" });
      await rsmq.sendMessageAsync({ qname: "q", message: "c" });
      const result = await cli("delete", "q", a, b);
      expect(result.code).to.equal(0);
      expect(result.stdout).to.equal("deleted 2 messages from q\n");
      expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(1);
    });

    it("exits 1 when an id was not there, naming it (--json lists deleted and notFound)", async () => {
      const a = await rsmq.sendMessageAsync({ qname: "q", message: "a" });
      const gone = "abcdefghij" + "A".repeat(22);
      const result = await cli("--json", "delete", "q", a, gone);
      expect(result.code).to.equal(1);
      expect(json(result)).to.deep.equal({ qname: "q", deleted: [a], notFound: [gone] });
      expect(result.stderr).to.include(`not in q: ${gone}`);
    });

    it("exits 2 for a malformed id, deleting nothing", async () => {
      await rsmq.sendMessageAsync({ qname: "q", message: "a" });
      const result = await cli("delete", "q", "not-an-id");
      expect(result.code).to.equal(2);
      expect(result.stderr).to.include("invalid message id");
      expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(1);
    });
  });

  describe("peek", () => {
    it("shows the first messages in receive order without receiving them", async () => {
      const ids = [];
      for (const body of ["first", "second\tline", "third"]) ids.push(await rsmq.sendMessageAsync({ qname: "q", message: body }));
      const [human, machineResult] = await Promise.all([cli("peek", "q", "-n", "2"), cli("--json", "peek", "q")]);
      expect(human.code).to.equal(0);
      const lines = human.stdout.trimEnd().split("\n");
      expect(lines[0]).to.match(/^ID {32}STATE +DUE +SENT +MESSAGE$/);
      // Columns are padded to their widest value: a SENT of "9ms ago" beside "10ms ago" gets one more space.
      expect(lines[1]).to.match(new RegExp(`^${ids[0]}  visible +.+ ago +.+ ago +first$`));
      expect(lines[2]).to.match(new RegExp(`^${ids[1]}  visible +.+ ago +.+ ago +second\\\\tline$`));
      expect(lines).to.have.length(3);
      expect(human.stderr).to.include("2 of 3 messages; more with -n 3");

      const machine = json(machineResult);
      expect(machine.total).to.equal(3);
      expect(machine.messages.map((m: { id: string; message: string }) => [m.id, m.message])).to.deep.equal([
        [ids[0], "first"],
        [ids[1], "second\tline"],
        [ids[2], "third"],
      ]);
      const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
      expect([attributes.totalrecv, attributes.hiddenmsgs]).to.deep.equal([0, 0]);
    });

    it("shows each message's state and due time: visible, in flight (received), delayed", async () => {
      await rsmq.createQueueAsync({ qname: "states", vt: 60 });
      const taken = await rsmq.sendMessageAsync({ qname: "states", message: "taken" });
      await rsmq.receiveMessageAsync({ qname: "states" });
      const waiting = await rsmq.sendMessageAsync({ qname: "states", message: "waiting" });
      const later = await rsmq.sendMessageAsync({ qname: "states", message: "later", delay: 100 });
      const [human, machineResult] = await Promise.all([cli("peek", "states"), cli("--json", "peek", "states")]);

      expect(human.code, human.stderr).to.equal(0);
      const lines = human.stdout.trimEnd().split("\n");
      expect(lines[0]).to.match(/^ID {32}STATE +DUE +SENT +MESSAGE$/);
      // Each column is padded to its widest value, so how many spaces end SENT depends on the ages
      // (a "1.2s ago" beside a "980ms ago"): the bodies start under MESSAGE, whatever the ages.
      expect(lines[1]).to.match(new RegExp(`^${waiting}  visible +\\S+ ago +.+ ago +waiting$`));
      expect(lines[2]).to.match(new RegExp(`^${taken}  in flight +in \\S+ +.+ ago +taken$`));
      expect(lines[3]).to.match(new RegExp(`^${later}  delayed +in 1m\\d\\ds +.+ ago +later$`));
      const column = lines[0].indexOf("MESSAGE");
      expect([lines[1], lines[2], lines[3]].map((line) => line.slice(column))).to.deep.equal(["waiting", "taken", "later"]);

      const machine = json(machineResult);
      expect(machine.now).to.be.a("number");
      expect(
        machine.messages.map((m: { id: string; state: string; receiveCount: number }) => [m.id, m.state, m.receiveCount]),
      ).to.deep.equal([
        [waiting, "visible", 0],
        [taken, "inFlight", 1],
        [later, "delayed", 0],
      ]);
      const [visible, inFlight, delayed] = machine.messages.map((m: { dueAt: number }) => m.dueAt - machine.now);
      expect(visible).to.be.at.most(0);
      expect(inFlight).to.be.within(50_000, 60_000);
      expect(delayed).to.be.within(90_000, 100_000);
    });

    it("with an id, shows that message with its whole body, and exits 1 when the queue does not hold it", async () => {
      const body = "line one\nline two, longer than any preview would show: " + "x".repeat(80);
      const id = await rsmq.sendMessageAsync({ qname: "q", message: body });
      await rsmq.deleteMessageAsync({ qname: "q", id: await rsmq.sendMessageAsync({ qname: "q", message: "gone" }) });
      const [human, machineResult, missing] = await Promise.all([
        cli("peek", "q", id),
        cli("--json", "peek", "q", id),
        cli("peek", "q", "a".repeat(32)),
      ]);

      expect(human.code, human.stderr).to.equal(0);
      expect(human.stdout).to.match(new RegExp(`^id +${id}\n`));
      expect(human.stdout).to.match(/\nstate +visible\n/);
      expect(human.stdout).to.match(/\nreceives +0\n/);
      expect(human.stdout.endsWith(`${body}\n`)).to.equal(true);
      expect(json(machineResult)).to.deep.equal(await rsmq.peekMessageAsync({ qname: "q", id }));
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.include(`message ${"a".repeat(32)} is not in queue "q"`);
    });

    it("says so for an empty queue, and exits 1 for a missing one", async () => {
      const [empty, missing] = await Promise.all([cli("peek", "q"), cli("peek", "nope")]);
      expect([empty.code, empty.stdout]).to.deep.equal([0, "queue q is empty\n"]);
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.include('queue "nope" does not exist');
    });
  });
});
