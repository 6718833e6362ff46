/**
 * The dashboard's reads against a real Redis: counts equal to what Redis holds, for queues written
 * by rsmq 0.12.4 (on the single server) and by rsmq-next; rates from rsmq's own counters; which
 * queue is whose dead-letter queue; the message browser's states, previews and whole bodies; the
 * reasons histogram. None of it changes a score, a receive count or any other byte. A reading of
 * every queue is one command on one server, one per queue plus the registry on a cluster, and the
 * cost meter counts exactly what the server saw.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { queueStates } from "../../lib/operations/queue-states";
import { CostMeter } from "../../lib/queue-state/cost-meter";
import { QueueBoard } from "../../lib/queue-state/queue-board";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { CommandWatch, deadLetterOne, oldRsmqOr } from "../support/retry";
import { exactState } from "../support/state";
import { serverNowMs } from "../support/inspect";
import { Cleanup } from "../support/worker";
import type { Rsmq } from "../support/old-rsmq";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const SCRIPTS = ["queueStates", "messagePage", "readMessage", "deadLetterNotes"];

describe("dashboard reads (QueueBoard)", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  let cost: CostMeter;
  let board: QueueBoard;

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    client = await plainClient();
    cleanup.add(() => client.quit());
    cost = new CostMeter();
    board = new QueueBoard(rsmq, internalsOf(rsmq), { cost });
  });
  afterEach(() => cleanup.run());

  /** What Redis holds for a queue, counted with plain commands at the server's time `now`. */
  async function countedByHand(qname: string, now: number) {
    const keys = keysOf(ns, qname);
    const entries = await client.zRangeWithScores(keys.messages, 0, -1);
    const fields = await client.hGetAll(keys.hash);
    const hidden = entries.filter(({ score }) => score > now);
    return {
      visible: entries.length - hidden.length,
      inFlight: hidden.filter(({ value }) => fields[`${value}:rc`] !== undefined).length,
      delayed: hidden.filter(({ value }) => fields[`${value}:rc`] === undefined).length,
      total: entries.length,
      nextDueAt: hidden.length ? Math.min(...hidden.map(({ score }) => score)) : null,
      within: (ms: number) => hidden.filter(({ score }) => score <= now + ms).length,
    };
  }

  /** Two visible, one in flight (received with vt 30), one delayed 120 s and one 2 h. */
  async function fill(writer: Pick<Rsmq, "createQueueAsync" | "sendMessageAsync" | "receiveMessageAsync">, qname: string) {
    await writer.createQueueAsync({ qname });
    for (const message of ["a", "b", "c"]) await writer.sendMessageAsync({ qname, message });
    await writer.receiveMessageAsync({ qname, vt: 30 });
    await writer.sendMessageAsync({ qname, message: "later", delay: 120 });
    await writer.sendMessageAsync({ qname, message: "much later", delay: 7200 });
  }

  it("counts every queue as Redis holds it, rsmq 0.12.4's queues included", async () => {
    const { reader: old, close } = oldRsmqOr(ns, rsmq);
    cleanup.add(close);
    await fill(old, "written-by-old");
    await fill(rsmq, "written-by-next");
    await rsmq.createQueueAsync({ qname: "empty" });

    const reading = await board.readQueues();
    expect(reading.queues.map((row) => row.qname)).to.deep.equal(["empty", "written-by-next", "written-by-old"]);
    for (const row of reading.queues) {
      const expected = await countedByHand(row.qname, reading.now);
      expect(row, row.qname).to.include({
        visible: expected.visible,
        inFlight: expected.inFlight,
        delayed: expected.delayed,
        total: expected.total,
        nextDueAt: expected.nextDueAt,
        partial: false,
      });
      expect(row.dueWithin, row.qname).to.deep.equal({
        "1m": expected.within(60_000),
        "10m": expected.within(600_000),
        "1h": expected.within(3_600_000),
      });
    }
    const written = reading.queues.find((row) => row.qname === "written-by-old")!;
    expect(written).to.include({
      visible: 2,
      inFlight: 1,
      delayed: 2,
      total: 5,
      totalsent: 5,
      totalrecv: 1,
      vt: 30,
      delay: 0,
      maxsize: 65536,
    });
    expect(written.dueWithin).to.deep.equal({ "1m": 1, "10m": 2, "1h": 2 });
    const empty = reading.queues.find((row) => row.qname === "empty")!;
    expect(empty).to.include({ visible: 0, total: 0, oldestAgeMs: null, nextDueAt: null });
  });

  it("gives the age of the message the next receive gets, from its id", async () => {
    await rsmq.createQueueAsync({ qname: "q" });
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "x" });
    const reading = await board.readQueues();
    const sent = parseInt(id.slice(0, 10), 36) / 1000;
    expect(reading.queues[0].oldestAgeMs).to.equal(Math.max(0, Math.round(reading.now - sent)));
  });

  it("changes nothing: no score, no receive count, no byte", async () => {
    await fill(rsmq, "q");
    await deadLetterOne(rsmq, "q", "q-dlq", "dead");
    const before = await exactState(client, ns);
    await board.readQueues();
    await board.readQueues();
    await board.readQueue("q");
    const page = await board.readMessages("q", { offset: 0, limit: 50 });
    for (const message of page.messages) await board.readMessage("q", message.id);
    await board.readDeadLetters("q-dlq");
    expect(await exactState(client, ns)).to.deep.equal(before);
  });

  it("reads every queue in one command on one server, one per queue plus the registry on a cluster, as the meter counts", async () => {
    for (const qname of ["a", "b", "c"]) await rsmq.createQueueAsync({ qname });
    await board.readQueues(); // learns the queues
    const watch = await CommandWatch.open();
    cleanup.add(() => watch.close());
    const counted = cost.reading(0).commands;
    await board.readQueues();
    const calls = (await watch.clientCalls(SCRIPTS)).map((call) => call.split(" ").slice(1).join(" ")).sort();
    const expected = internalsOf(rsmq).layout.registryWithQueues
      ? ["evalsha_ro queueStates"]
      : ["evalsha_ro queueStates", "evalsha_ro queueStates", "evalsha_ro queueStates", "smembers"];
    expect(calls).to.deep.equal(expected);
    expect(cost.reading(0).commands - counted).to.equal(expected.length);
  });

  it("finds a queue created since the last reading, and drops one deleted", async () => {
    await rsmq.createQueueAsync({ qname: "first" });
    expect((await board.readQueues()).queues.map((row) => row.qname)).to.deep.equal(["first"]);
    await rsmq.createQueueAsync({ qname: "second" });
    await rsmq.sendMessageAsync({ qname: "second", message: "m" });
    const next = await board.readQueues();
    expect(next.queues.map((row) => [row.qname, row.total])).to.deep.equal([
      ["first", 0],
      ["second", 1],
    ]);
    await rsmq.deleteQueueAsync({ qname: "first" });
    expect((await board.readQueues()).queues.map((row) => row.qname)).to.deep.equal(["second"]);
  });

  it("gives sent and received per second between two readings, from rsmq's counters", async () => {
    await rsmq.createQueueAsync({ qname: "q" });
    const first = await board.readQueues();
    expect(first.queues[0]).to.include({ sentPerSecond: null, receivedPerSecond: null });
    for (let i = 0; i < 5; i++) await rsmq.sendMessageAsync({ qname: "q", message: String(i) });
    await rsmq.receiveMessageAsync({ qname: "q" });
    // At least a ms of server time between the readings, so the rate has a span.
    const from = await serverNowMs(client);
    while ((await serverNowMs(client)) <= from);
    const second = await board.readQueues();
    const seconds = (second.now - first.now) / 1000;
    expect(second.queues[0].sentPerSecond! * seconds).to.be.closeTo(5, 1e-9);
    expect(second.queues[0].receivedPerSecond! * seconds).to.be.closeTo(1, 1e-9);
  });

  it("pairs each queue with its dead-letter queue: <qname>-dlq, or as configured", async () => {
    await rsmq.createQueueAsync({ qname: "orders" });
    await deadLetterOne(rsmq, "orders", "orders-dlq", "x");
    await rsmq.createQueueAsync({ qname: "mail" });
    await rsmq.createQueueAsync({ qname: "mail-failed" });
    const paired = new QueueBoard(rsmq, internalsOf(rsmq), { cost, deadLetterQueues: { mail: "mail-failed" } });
    const rows = new Map((await paired.readQueues()).queues.map((row) => [row.qname, row]));
    expect(rows.get("orders")).to.deep.include({ deadLetterQueue: { qname: "orders-dlq", total: 1 }, isDeadLetterQueue: false });
    expect(rows.get("orders-dlq")).to.deep.include({ deadLetterQueue: null, isDeadLetterQueue: true });
    expect(rows.get("mail")).to.deep.include({ deadLetterQueue: { qname: "mail-failed", total: 0 } });
    expect(rows.get("mail-failed")).to.include({ isDeadLetterQueue: true });
    const one = await paired.readQueue("orders-dlq");
    expect(one.queue).to.include({ qname: "orders-dlq", total: 1, isDeadLetterQueue: true });
  });

  it("rejects queueNotFound for a queue that does not exist, and bad names before any round trip", async () => {
    const rejection = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: Error) => error,
      );
    expect((await rejection(board.readQueue("missing")))?.name).to.equal("queueNotFound");
    expect((await rejection(board.readMessages("missing", { offset: 0, limit: 10 })))?.name).to.equal("queueNotFound");
    const sent = cost.reading(0).commands;
    expect((await rejection(board.readQueue("bad name!")))?.name).to.equal("invalidFormat");
    expect((await rejection(board.readMessages("q", { offset: -1, limit: 10 })))?.name).to.equal("invalidValue");
    expect((await rejection(board.readMessages("q", { offset: 0, limit: 1001 })))?.name).to.equal("invalidValue");
    expect((await rejection(board.readMessage("q", "not-an-id")))?.name).to.equal("invalidFormat");
    expect(cost.reading(0).commands, "commands sent for bad input").to.equal(sent);
  });

  it("tells in-flight from delayed for the first hidden messages only, and says so", async () => {
    await fill(rsmq, "q");
    const layout = internalsOf(rsmq).layout;
    const withRegistry = layout.registryWithQueues;
    const states = await internalsOf(rsmq).run(() => queueStates(layout, ["q"], withRegistry, 1));
    expect(states.queues[0]).to.include({ total: 5, visible: 2, inFlight: 1, delayed: 0, partial: true });
  });

  describe("the message browser", () => {
    it("lists messages in receive order with their states, receive counts and due times", async () => {
      await fill(rsmq, "q");
      const page = await board.readMessages("q", { offset: 0, limit: 50 });
      expect(page).to.include({ qname: "q", total: 5, offset: 0, limit: 50 });
      expect(page.messages.map((message) => [message.body, message.state, message.receiveCount])).to.deep.equal([
        ["b", "visible", 0],
        ["c", "visible", 0],
        ["a", "inFlight", 1],
        ["later", "delayed", 0],
        ["much later", "delayed", 0],
      ]);
      const keys = keysOf(ns, "q");
      for (const message of page.messages) {
        expect(message.dueAt).to.equal(await client.zScore(keys.messages, message.id));
        expect(message.sent).to.equal(parseInt(message.id.slice(0, 10), 36) / 1000);
      }
      const received = page.messages[2];
      expect(received.firstReceived).to.equal(Number(await client.hGet(keys.hash, `${received.id}:fr`)));
      expect(page.messages[0].firstReceived).to.equal(null);
      const second = await board.readMessages("q", { offset: 3, limit: 1 });
      expect(second.messages.map((message) => message.body)).to.deep.equal(["later"]);
    });

    it("marks dead letters and gives why they stopped", async () => {
      await rsmq.createQueueAsync({ qname: "q" });
      await deadLetterOne(rsmq, "q", "q-dlq", "dead", { reason: "poison", error: "bad input" });
      const [message] = (await board.readMessages("q-dlq", { offset: 0, limit: 10 })).messages;
      expect(message.state).to.equal("deadLettered");
      expect(message.deadLetter).to.include({ source: "q", reason: "poison", error: "bad input" });
    });

    it("cuts bodies on the server to whole characters, and gives the whole body on request", async () => {
      await rsmq.createQueueAsync({ qname: "q" });
      const long = "é".repeat(30) + "😀".repeat(30);
      const id = await rsmq.sendMessageAsync({ qname: "q", message: long });
      await rsmq.sendMessageAsync({ qname: "q", message: "short" });
      const small = new QueueBoard(rsmq, internalsOf(rsmq), { cost, previewChars: 40 });
      const [cut, whole] = (await small.readMessages("q", { offset: 0, limit: 10 })).messages;
      expect(cut).to.include({ body: "é".repeat(30) + "😀".repeat(10), truncated: true, size: Buffer.byteLength(long) });
      expect(whole).to.include({ body: "short", truncated: false, size: 5 });
      const full = await small.readMessage("q", id);
      expect(full.message).to.include({ id, body: long, truncated: false, state: "visible" });
    });

    it("rejects messageNotFound for an id that is not in the queue", async () => {
      await rsmq.createQueueAsync({ qname: "q" });
      const id = await rsmq.sendMessageAsync({ qname: "q", message: "x" });
      await rsmq.deleteMessageAsync({ qname: "q", id });
      const error = await board.readMessage("q", id).then(
        () => undefined,
        (failure: Error) => failure,
      );
      expect(error?.name).to.equal("messageNotFound");
    });
  });

  it("groups dead letters by reason and last error, largest group first", async () => {
    await rsmq.createQueueAsync({ qname: "a" });
    await rsmq.createQueueAsync({ qname: "b" });
    await deadLetterOne(rsmq, "a", "dlq", "1", { reason: "exhausted", error: "timeout" });
    await deadLetterOne(rsmq, "b", "dlq", "2", { reason: "exhausted", error: "timeout" });
    await deadLetterOne(rsmq, "a", "dlq", "3", { reason: "poison", error: "bad input" });
    await rsmq.sendMessageAsync({ qname: "dlq", message: "sent here by hand" });
    const reasons = await board.readDeadLetters("dlq");
    expect(reasons).to.include({ qname: "dlq", total: 4, looked: 4, partial: false });
    expect(reasons.groups.map(({ reason, error, count, sources }) => ({ reason, error, count, sources }))).to.deep.equal([
      { reason: "exhausted", error: "timeout", count: 2, sources: ["a", "b"] },
      { reason: "poison", error: "bad input", count: 1, sources: ["a"] },
      { reason: "unknown", error: "", count: 1, sources: [] },
    ]);
    const [timeouts] = reasons.groups;
    expect(timeouts.firstAt).to.be.a("number");
    expect(timeouts.lastAt! >= timeouts.firstAt!).to.equal(true);
  });
});
