/**
 * Redrive: dead-lettered messages go back to their source queue (or `to`) as new messages:
 * visible now, rc reset, `<id>:dl` gone; then a worker handles them normally, woken in-process by
 * the redrive. `limit`, mixed sources, missing targets, messages without a record, paging past
 * 1000, and input validation before any round trip. Which scripts do it: one redrive script where
 * the queues share a slot, redriveCopy then deleteMessages across Redis Cluster slots (and across
 * masters, on the cluster target).
 */
import { expect } from "chai";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import type { Operation } from "../../lib/operations/operation";
import type { MessageWithState } from "../../lib/types";
import { planRedrive, redrive } from "../../lib/dead-letters/redrive";
import { internalsOf } from "../../lib/internals";
import { connectionOptions, keysOf, onCluster, plainClient, uniqueNs } from "../support/server";
import { asMessage } from "../support/old-rsmq";
import { Cleanup, WorkerLog, waitFor } from "../support/worker";
import {
  CommandWatch,
  callsByNode,
  clusterOnly,
  deadLetterOne,
  loadScripts,
  messageFields,
  nodeOfQueue,
  oldRsmqOr,
  queueOnAnotherMaster,
  serverNowMs,
  watchDuring,
} from "../support/retry";
import type { WatchedNode } from "../support/retry";
import { exactState } from "../support/state";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker, PoisonError } = RedisSMQ;

describe("redrive", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    client = await plainClient();
    cleanup.add(() => client.quit());
    await rsmq.createQueueAsync({ qname: "src" });
  });
  afterEach(() => cleanup.run());

  const fieldsOf = (qname: string): Promise<string[]> => messageFields(client, ns, qname);

  const errorOf = <T>(promise: Promise<T>): Promise<Error | undefined> =>
    promise.then(
      () => undefined,
      (error: Error) => error,
    );

  it("moves every message home as new: visible now, rc and fr reset, `<id>:dl` gone; resolves how many", async () => {
    const ids = [await deadLetterOne(rsmq, "src", "dlq", "a")];
    // Received twice in the dead-letter queue (by an rsmq 0.12.4 client): rc 2 and fr there too.
    // rsmq 0.12.4 cannot run on a cluster: there rsmq-next receives instead.
    const { reader: old, close } = oldRsmqOr(ns, rsmq);
    cleanup.add(close);
    const firstLook = asMessage(await old.receiveMessageAsync({ qname: "dlq", vt: 0 }));
    const secondLook = asMessage(await old.receiveMessageAsync({ qname: "dlq", vt: 0 }));
    expect(secondLook).to.include({ id: ids[0], rc: 2 });
    expect(await fieldsOf("dlq")).to.deep.equal([ids[0], `${ids[0]}:dl`, `${ids[0]}:fr`, `${ids[0]}:rc`].sort());
    for (const body of ["b", "c"]) ids.push(await deadLetterOne(rsmq, "src", "dlq", body));
    const sentBefore = (await rsmq.getQueueAttributesAsync({ qname: "src" })).totalsent;

    const before = await serverNowMs(client);
    expect(await rsmq.redriveAsync({ from: "dlq" })).to.equal(3);
    const after = await serverNowMs(client);

    for (const [i, id] of ids.entries()) {
      expect(await client.zScore(keysOf(ns, "src").messages, id), id).to.be.within(before, after);
      expect(await client.hGet(keysOf(ns, "src").hash, id)).to.equal(["a", "b", "c"][i]);
    }
    expect(await fieldsOf("src")).to.deep.equal([...ids].sort());
    expect(await fieldsOf("dlq")).to.deep.equal([]);
    expect(await client.zCard(keysOf(ns, "dlq").messages)).to.equal(0);
    expect(await rsmq.getQueueAttributesAsync({ qname: "src" })).to.include({ totalsent: sentBefore + 3, msgs: 3, hiddenmsgs: 0 });
    // The dead-letter queue stays, empty.
    expect(await rsmq.listQueuesAsync()).to.have.members(["src", "dlq"]);

    // New deliveries: rc 1 and a new first-receive time, for rsmq 0.12.4 too.
    const again = asMessage(await old.receiveMessageAsync({ qname: "src" }));
    expect(again.rc).to.equal(1);
    expect(again.fr).to.be.at.least(before);
    expect(again.fr).to.be.above(firstLook.fr);
    expect(ids).to.include(again.id);
    expect(await rsmq.redriveAsync({ from: "dlq" })).to.equal(0);
  });

  const peeked = async (qname: string, id: string): Promise<MessageWithState> => {
    const found = await rsmq.peekMessageAsync({ qname, id });
    if (!("id" in found)) throw new Error(`${id} is not in ${qname}`);
    return found;
  };

  // What docs/api.md, docs/retries.md and docs/cli.md say a redriven message keeps and what is new.
  for (const atomic of [true, false]) {
    it(`keeps the id (so the send time) and the body; new: due now at priority 0, never received, no record (${atomic ? "one script" : "two-step move"})`, async () => {
      const id = await deadLetterOne(rsmq, "src", "dlq", "a body");
      const dead = await peeked("dlq", id);
      expect(dead.deadLetter).to.include({ source: "src", reason: "exhausted", deliveries: 1 });

      const before = await serverNowMs(client);
      const moved = atomic
        ? await rsmq.redriveAsync({ from: "dlq" })
        : await redrive(internalsOf(rsmq), planRedrive({ from: "dlq" }), () => undefined, { atomic: false });
      const after = await serverNowMs(client);
      expect(moved).to.equal(1);

      const back = await peeked("src", id);
      expect(back).to.deep.equal({ id, message: "a body", sent: dead.sent, state: "visible", dueAt: back.dueAt, receiveCount: 0 });
      // Scored by the server's time of the redrive: a priority-0 send's score.
      expect(back.dueAt).to.be.within(before, after);
      expect(Number(await client.zScore(keysOf(ns, "src").messages, id))).to.equal(back.dueAt);
      expect(await fieldsOf("src")).to.deep.equal([id]);

      const received = asMessage(await rsmq.receiveMessageAsync({ qname: "src" }));
      expect(received).to.include({ id, message: "a body", sent: dead.sent, rc: 1 });
      expect(received.fr).to.be.at.least(after);
    });
  }

  it("redriven messages are handled normally by a worker, woken by the redrive in this process", async () => {
    for (const body of ["a", "b", "c"]) await deadLetterOne(rsmq, "src", "dlq", body);
    const handled: Array<[string, number]> = [];
    const worker = cleanup.worker(
      new Worker(rsmq, {
        qname: "src",
        realtimeWakes: false,
        // Without the redrive's wake, the messages would wait for this cap.
        maxIdleSleepMs: 60_000,
        handler: (message) => void handled.push([message.message, message.rc]),
      }),
    );
    const log = new WorkerLog(worker);
    worker.start();
    await waitFor(() => log.asleep, "the worker asleep on an empty queue");
    const other = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    expect(await other.redriveAsync({ from: "dlq" })).to.equal(3);
    await waitFor(() => worker.counters.handled === 3, "three handled", 5_000);
    expect(handled.sort()).to.deep.equal([
      ["a", 1],
      ["b", 1],
      ["c", 1],
    ]);
    expect(log.named("wake").map((event) => event.args[0])).to.include("woken");
    expect(await client.zCard(keysOf(ns, "src").messages)).to.equal(0);
    expect(await fieldsOf("src")).to.deep.equal([]);
    expect(worker.counters).to.include({ failed: 0, errors: 0 });
  });

  it("one redrive EVALSHA per target on one server; across cluster slots: check the target, claim, copy into the target, delete", async () => {
    const ids = [await deadLetterOne(rsmq, "src", "dlq", "a"), await deadLetterOne(rsmq, "src", "dlq", "b")];
    const scripts = ["peekDeadLetters", "redrive", "getQueueAttributes", "redriveClaim", "redriveCopy", "deleteMessages"];
    await loadScripts(client, scripts);
    const [home, dead] = [await nodeOfQueue(ns, "src"), await nodeOfQueue(ns, "dlq")];
    const watch = await CommandWatch.open();
    cleanup.add(() => watch.close());
    expect(await rsmq.redriveAsync({ from: "dlq" })).to.equal(2);
    const calls = await watch.clientCallsByNode(scripts);
    if (onCluster()) {
      // "dlq" and "src" are different hash tags: claimed (hidden) first, copied second, deleted last
      // (a crash between duplicates, never drops).
      expect(calls).to.deep.equal(
        callsByNode([
          [dead, "evalsha_ro peekDeadLetters"],
          [home, "evalsha_ro getQueueAttributes"],
          [dead, "evalsha redriveClaim"],
          [home, "evalsha redriveCopy"],
          [dead, "evalsha deleteMessages"],
        ]),
      );
      const [copy] = await watch.scriptCalls("redriveCopy");
      expect(copy.args.slice(2, 5)).to.deep.equal(["2", keysOf(ns, "src").messages, keysOf(ns, "src").hash]);
    } else {
      expect(calls).to.deep.equal(
        callsByNode([
          [dead, "evalsha_ro peekDeadLetters"],
          [home, "evalsha redrive"],
        ]),
      );
    }
    expect((await client.zRange(keysOf(ns, "src").messages, 0, -1)).sort()).to.deep.equal([...ids].sort());
    expect(await fieldsOf("src")).to.deep.equal([...ids].sort());
    expect(await fieldsOf("dlq")).to.deep.equal([]);
  });

  it("a dead-letter queue served by another master than its source gets the message with why, and redrive brings it back", async function () {
    clusterOnly(this, "one server has no other master");
    const dlq = await queueOnAnotherMaster(ns, "src", "dead");
    const [home, dead] = [await nodeOfQueue(ns, "src"), await nodeOfQueue(ns, dlq)];
    expect(dead.port).to.not.equal(home.port);
    /** A client on one node only: proves where the data is, which a cluster client would hide. */
    const onNode = async (node: { url: string }): Promise<RedisClientType> => {
      const nodeClient = createClient({ url: node.url }) as RedisClientType;
      nodeClient.on("error", () => undefined);
      await nodeClient.connect();
      cleanup.add(() => nodeClient.quit());
      return nodeClient;
    };
    const [homeNode, deadNode] = [await onNode(home), await onNode(dead)];
    const scripts = ["deadLetter", "deadLetterCopy", "hideMessage", "deleteMessage", "redrive", "redriveCopy", "deleteMessages"];
    await loadScripts(client, scripts);
    const watch = await CommandWatch.open();
    cleanup.add(() => watch.close());

    const worker = cleanup.worker(
      new Worker(rsmq, {
        qname: "src",
        deadLetterQueue: dlq,
        handler: () => {
          throw new PoisonError("no customer on the order");
        },
      }),
    );
    const before = await serverNowMs(client);
    const id = await rsmq.sendMessageAsync({ qname: "src", message: "order 42" });
    worker.start();
    await waitFor(() => worker.counters.deadLettered === 1, "the message dead-lettered");
    await worker.stop();
    const after = await serverNowMs(client);

    // The two-step move: held and deleted on the source's master, copied on the other one; never the one-script move.
    const [hold] = await watch.scriptCalls("hideMessage");
    // With its receipt (rc 1): only the holder's delivery is parked for the move.
    expect([hold.node, ...hold.args.slice(2)]).to.deep.equal([
      home.port,
      "3",
      keysOf(ns, "src").messages,
      keysOf(ns, "src").hash,
      keysOf(ns, "src").leases,
      id,
      "60000",
      "1",
    ]);
    const copies = await watch.scriptCalls("deadLetterCopy");
    expect(copies.map((command) => [command.node, ...command.args.slice(2, 6)])).to.deep.equal([
      [dead.port, "2", keysOf(ns, dlq).messages, keysOf(ns, dlq).hash, id],
    ]);
    expect((await watch.scriptCalls("deleteMessage")).map((command) => command.node)).to.deep.equal([home.port]);
    expect(await watch.scriptCalls("deadLetter")).to.deep.equal([]);

    // On the other master: the body and why; nothing of it left on the source's master.
    expect(await deadNode.hGet(keysOf(ns, dlq).hash, id)).to.equal("order 42");
    const note = JSON.parse((await deadNode.hGet(keysOf(ns, dlq).hash, `${id}:dl`))!) as Record<string, unknown>;
    expect(note).to.include({ source: "src", deliveries: 1, reason: "poison", error: "no customer on the order" });
    expect(note.at).to.be.within(before, after);
    expect(await deadNode.zScore(keysOf(ns, dlq).messages, id)).to.be.a("number");
    expect(await homeNode.zScore(keysOf(ns, "src").messages, id)).to.equal(null);
    expect((await homeNode.hKeys(keysOf(ns, "src").hash)).filter((field) => field.startsWith(id))).to.deep.equal([]);
    const [peeked] = await rsmq.peekDeadLettersAsync({ qname: dlq });
    expect(peeked).to.include({ id, message: "order 42" });
    expect(peeked.deadLetter).to.deep.equal(note);
    expect(await rsmq.listQueuesAsync()).to.have.members(["src", dlq]);

    // Redrive: copied home on the source's master, then deleted on the other.
    expect(await rsmq.redriveAsync({ from: dlq })).to.equal(1);
    expect((await watch.scriptCalls("redriveCopy")).map((command) => command.node)).to.deep.equal([home.port]);
    expect((await watch.scriptCalls("deleteMessages")).map((command) => command.node)).to.deep.equal([dead.port]);
    expect(await watch.scriptCalls("redrive")).to.deep.equal([]);
    expect(await deadNode.zCard(keysOf(ns, dlq).messages)).to.equal(0);
    expect(await messageFields(deadNode, ns, dlq)).to.deep.equal([]);
    expect(await homeNode.hGet(keysOf(ns, "src").hash, id)).to.equal("order 42");
    expect(await messageFields(homeNode, ns, "src")).to.deep.equal([id]);
    const back = asMessage(await rsmq.receiveMessageAsync({ qname: "src" }));
    expect(back).to.include({ id, message: "order 42", rc: 1 });
  });

  // Forced with `atomic: false`, so on one server too; across Redis Cluster slots redrive takes it anyway.
  describe("the two-step move (queues that cannot share a script)", () => {
    /** Short, so that the test can wait for the hold to end. */
    const HOLD_MS = 1_000;

    it("lost between copy and delete: each message in both queues, never neither; run again, it completes them once", async () => {
      const ids = [await deadLetterOne(rsmq, "src", "dlq", "a"), await deadLetterOne(rsmq, "src", "dlq", "b")];
      const sentBefore = (await rsmq.getQueueAttributesAsync({ qname: "src" })).totalsent;
      const plan = planRedrive({ from: "dlq" });
      // The instance that crashes: its connection is gone for good once the copy is done.
      const options = connectionOptions(ns);
      const crashing = cleanup.rsmq(new RedisSMQ(options));
      const before = await serverNowMs(client);
      const failure = await errorOf(
        redrive(internalsOf(crashing), plan, () => undefined, {
          atomic: false,
          holdMs: HOLD_MS,
          afterCopy: async () => {
            await crashing.quitAsync();
            // A client passed in (the ioredis target) outlives quitAsync(): closing it is the crash.
            (options as { client?: { disconnect(): void } }).client?.disconnect();
          },
        }),
      );
      const after = await serverNowMs(client);
      expect(failure, "the delete on a closed connection").to.be.instanceOf(Error);

      for (const [i, id] of ids.entries()) {
        // Copied: in the target with its body, visible now, rc reset.
        expect(await client.zScore(keysOf(ns, "src").messages, id), id).to.be.within(before, after);
        expect(await client.hGet(keysOf(ns, "src").hash, id)).to.equal(["a", "b"][i]);
        // Not deleted: still in the dead-letter queue, body and why, held until the hold ends.
        expect(await client.zScore(keysOf(ns, "dlq").messages, id), id).to.be.within(before + HOLD_MS, after + HOLD_MS);
        expect(await client.hGet(keysOf(ns, "dlq").hash, id)).to.equal(["a", "b"][i]);
        expect(await client.hExists(keysOf(ns, "dlq").hash, `${id}:dl`)).to.equal(true);
      }
      expect(await fieldsOf("src")).to.deep.equal([...ids].sort());
      expect(await rsmq.getQueueAttributesAsync({ qname: "src" })).to.include({ totalsent: sentBefore + 2, msgs: 2 });

      // Again, without the crash, once the hold has ended: done, and the copies not counted twice.
      await waitFor(async () => (await serverNowMs(client)) > after + HOLD_MS, "the hold to end");
      expect(await redrive(internalsOf(rsmq), plan, () => undefined, { atomic: false })).to.equal(2);
      expect(await client.zCard(keysOf(ns, "dlq").messages)).to.equal(0);
      expect(await fieldsOf("dlq")).to.deep.equal([]);
      expect((await client.zRange(keysOf(ns, "src").messages, 0, -1)).sort()).to.deep.equal([...ids].sort());
      expect(await fieldsOf("src")).to.deep.equal([...ids].sort());
      expect(await rsmq.getQueueAttributesAsync({ qname: "src" })).to.include({ totalsent: sentBefore + 2, msgs: 2 });
    });
  });

  it("does not bring back a message deleted from the dead-letter queue after redrive read its page", async () => {
    const id = await deadLetterOne(rsmq, "src", "dlq", "gone soon");
    const other = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    const queue = internalsOf(rsmq);
    const run = queue.run;
    // Another client deletes the message right after the page was read, before the move.
    (queue as { run: typeof run }).run = async <T>(build: () => Operation<T>): Promise<T> => {
      const reply = await run(build);
      if (build().script === "peekDeadLetters" && (reply as { messages: unknown[] }).messages.length > 0)
        await other.deleteMessageAsync({ qname: "dlq", id });
      return reply;
    };
    expect(await rsmq.redriveAsync({ from: "dlq" })).to.equal(0);
    expect(await client.zCard(keysOf(ns, "src").messages)).to.equal(0);
    expect(await fieldsOf("src")).to.deep.equal([]);
  });

  it("passes over a dead-letter entry whose body is gone, moving nothing", async () => {
    const id = await deadLetterOne(rsmq, "src", "dlq", "body");
    await client.hDel(keysOf(ns, "dlq").hash, id);
    expect(await rsmq.redriveAsync({ from: "dlq" })).to.equal(0);
    expect(await client.zCard(keysOf(ns, "src").messages)).to.equal(0);
    expect(await client.zRange(keysOf(ns, "dlq").messages, 0, -1)).to.deep.equal([id]);
  });

  it("respects limit, taking the front of the dead-letter queue first", async () => {
    for (let i = 1; i <= 5; i++) await deadLetterOne(rsmq, "src", "dlq", `m${i}`);
    const order = await client.zRange(keysOf(ns, "dlq").messages, 0, -1);
    expect(await rsmq.redriveAsync({ from: "dlq", limit: 2 })).to.equal(2);
    expect(await client.zRange(keysOf(ns, "dlq").messages, 0, -1)).to.deep.equal(order.slice(2));
    expect((await client.zRange(keysOf(ns, "src").messages, 0, -1)).sort()).to.deep.equal(order.slice(0, 2).sort());
    expect(await rsmq.redriveAsync({ from: "dlq", limit: 1 })).to.equal(1);
    expect(await rsmq.redriveAsync({ from: "dlq", limit: 10 })).to.equal(2);
    expect(await client.zCard(keysOf(ns, "src").messages)).to.equal(5);
  });

  it("sends each message home when one dead-letter queue holds messages of two sources; `to` overrides", async () => {
    await rsmq.createQueueAsync({ qname: "other" });
    const fromSrc = [await deadLetterOne(rsmq, "src", "dlq", "s1"), await deadLetterOne(rsmq, "src", "dlq", "s2")];
    const fromOther = [await deadLetterOne(rsmq, "other", "dlq", "o1")];
    fromSrc.push(await deadLetterOne(rsmq, "src", "dlq", "s3"));
    expect(await rsmq.redriveAsync({ from: "dlq" })).to.equal(4);
    expect((await client.zRange(keysOf(ns, "src").messages, 0, -1)).sort()).to.deep.equal([...fromSrc].sort());
    expect(await client.zRange(keysOf(ns, "other").messages, 0, -1)).to.deep.equal(fromOther);
    expect(await fieldsOf("other")).to.deep.equal(fromOther);

    // With `to`, all go there, whatever their source.
    await rsmq.createQueueAsync({ qname: "review" });
    const again = [await deadLetterOne(rsmq, "src", "dlq", "s4"), await deadLetterOne(rsmq, "other", "dlq", "o2")];
    expect(await rsmq.redriveAsync({ from: "dlq", to: "review" })).to.equal(2);
    expect((await client.zRange(keysOf(ns, "review").messages, 0, -1)).sort()).to.deep.equal([...again].sort());
    expect(await fieldsOf("review")).to.deep.equal([...again].sort());
  });

  it("a target queue that does not exist: queueNotFound, nothing moved", async () => {
    await deadLetterOne(rsmq, "src", "dlq", "m");
    let before = await exactState(client, ns);
    expect(await errorOf(rsmq.redriveAsync({ from: "dlq", to: "nope" }))).to.include({ name: "queueNotFound", message: "Queue not found" });
    expect(await exactState(client, ns)).to.deep.equal(before);

    // The recorded source deleted since.
    await rsmq.deleteQueueAsync({ qname: "src" });
    before = await exactState(client, ns);
    expect(await errorOf(rsmq.redriveAsync({ from: "dlq" }))).to.include({ name: "queueNotFound" });
    expect(await exactState(client, ns)).to.deep.equal(before);
    expect(await client.exists([keysOf(ns, "src").messages, keysOf(ns, "src").hash])).to.equal(0);

    // A missing dead-letter queue.
    expect(await errorOf(rsmq.redriveAsync({ from: "missing" }))).to.include({ name: "queueNotFound" });
  });

  it("leaves messages without a dead-letter record where they are, unless `to` is given", async () => {
    await rsmq.createQueueAsync({ qname: "dlq" });
    // In front: sent straight to the dead-letter queue, so no record of a source.
    const plain = await rsmq.sendMessageAsync({ qname: "dlq", message: "plain" });
    const recorded = await deadLetterOne(rsmq, "src", "dlq", "recorded");
    expect(await rsmq.redriveAsync({ from: "dlq", limit: 1 })).to.equal(1);
    expect(await client.zRange(keysOf(ns, "dlq").messages, 0, -1)).to.deep.equal([plain]);
    expect(await client.zRange(keysOf(ns, "src").messages, 0, -1)).to.deep.equal([recorded]);
    expect(await rsmq.redriveAsync({ from: "dlq" })).to.equal(0);
    expect(await client.zRange(keysOf(ns, "dlq").messages, 0, -1)).to.deep.equal([plain]);
    expect(await rsmq.redriveAsync({ from: "dlq", to: "src" })).to.equal(1);
    expect(await client.zCard(keysOf(ns, "dlq").messages)).to.equal(0);
    expect((await client.zRange(keysOf(ns, "src").messages, 0, -1)).sort()).to.deep.equal([plain, recorded].sort());
  });

  it("leaves a message whose recorded source is the dead-letter queue itself (it would loop), unless `to` is given", async () => {
    const looping = await deadLetterOne(rsmq, "src", "dlq", "self", { source: "dlq" });
    const home = await deadLetterOne(rsmq, "src", "dlq", "home");
    expect(await rsmq.redriveAsync({ from: "dlq" })).to.equal(1);
    expect(await client.zRange(keysOf(ns, "dlq").messages, 0, -1)).to.deep.equal([looping]);
    expect(await client.zRange(keysOf(ns, "src").messages, 0, -1)).to.deep.equal([home]);
    expect(await rsmq.redriveAsync({ from: "dlq", to: "src" })).to.equal(1);
    expect(await client.zCard(keysOf(ns, "dlq").messages)).to.equal(0);
  });

  it("pages past 1000: passes over 1003 messages without a record to reach the ones behind them; limit across pages", async () => {
    await rsmq.createQueueAsync({ qname: "dlq" });
    await Promise.all(Array.from({ length: 1003 }, (_, i) => rsmq.sendMessageAsync({ qname: "dlq", message: `plain ${i}` })));
    const recorded = [await deadLetterOne(rsmq, "src", "dlq", "r1"), await deadLetterOne(rsmq, "src", "dlq", "r2")];
    expect(await rsmq.redriveAsync({ from: "dlq" })).to.equal(2);
    expect((await client.zRange(keysOf(ns, "src").messages, 0, -1)).sort()).to.deep.equal([...recorded].sort());
    expect(await client.zCard(keysOf(ns, "dlq").messages)).to.equal(1003);

    // With `to`, a limit beyond one page moves exactly that many, front first.
    const order = await client.zRange(keysOf(ns, "dlq").messages, 0, -1);
    expect(await rsmq.redriveAsync({ from: "dlq", to: "src", limit: 1001 })).to.equal(1001);
    expect(await client.zRange(keysOf(ns, "dlq").messages, 0, -1)).to.deep.equal(order.slice(1001));
    expect(await client.zCard(keysOf(ns, "src").messages)).to.equal(1003);
  });

  describe("one message by id", () => {
    it("moves that message only, home or to `to`, atomically; the others stay in order", async () => {
      const ids: string[] = [];
      for (const body of ["a", "b", "c"]) ids.push(await deadLetterOne(rsmq, "src", "dlq", body));
      const sentBefore = (await rsmq.getQueueAttributesAsync({ qname: "src" })).totalsent;
      expect(await rsmq.redriveAsync({ from: "dlq", id: ids[1] })).to.equal(1);
      expect(await client.zRange(keysOf(ns, "dlq").messages, 0, -1)).to.deep.equal([ids[0], ids[2]]);
      expect(await client.zRange(keysOf(ns, "src").messages, 0, -1)).to.deep.equal([ids[1]]);
      expect(await fieldsOf("src")).to.deep.equal([ids[1]]);
      expect(await client.hGet(keysOf(ns, "src").hash, ids[1])).to.equal("b");
      expect(await rsmq.getQueueAttributesAsync({ qname: "src" })).to.include({ totalsent: sentBefore + 1 });

      await rsmq.createQueueAsync({ qname: "review" });
      expect(await rsmq.redriveAsync({ from: "dlq", id: ids[2], to: "review" })).to.equal(1);
      expect(await client.zRange(keysOf(ns, "review").messages, 0, -1)).to.deep.equal([ids[2]]);
      expect(await client.zRange(keysOf(ns, "dlq").messages, 0, -1)).to.deep.equal([ids[0]]);
    });

    it("resolves 0 and changes nothing for an id not in the queue, one without a source, or one a filter leaves", async () => {
      const id = await deadLetterOne(rsmq, "src", "dlq", "a", { reason: "poison" });
      const plain = await rsmq.sendMessageAsync({ qname: "dlq", message: "plain" });
      const missing = await rsmq.sendMessageAsync({ qname: "src", message: "elsewhere" });
      const before = await exactState(client, ns);
      expect(await rsmq.redriveAsync({ from: "dlq", id: missing })).to.equal(0);
      expect(await rsmq.redriveAsync({ from: "dlq", id: plain })).to.equal(0);
      expect(await rsmq.redriveAsync({ from: "dlq", id, reason: "exhausted" })).to.equal(0);
      expect(await exactState(client, ns)).to.deep.equal(before);
      expect(await rsmq.redriveAsync({ from: "dlq", id: plain, to: "src" })).to.equal(1);
      expect(await rsmq.redriveAsync({ from: "dlq", id, reason: "poison" })).to.equal(1);
      expect(await client.zCard(keysOf(ns, "dlq").messages)).to.equal(0);
    });

    it("one read of that message, then the move of a page: one redrive script on one server, the two-step move across slots", async () => {
      const id = await deadLetterOne(rsmq, "src", "dlq", "a");
      const scripts = ["readMessage", "peekDeadLetters", "redrive", "getQueueAttributes", "redriveClaim", "redriveCopy", "deleteMessages"];
      await loadScripts(client, scripts);
      const [home, dead] = [await nodeOfQueue(ns, "src"), await nodeOfQueue(ns, "dlq")];
      const watch = await CommandWatch.open();
      cleanup.add(() => watch.close());
      expect(await rsmq.redriveAsync({ from: "dlq", id })).to.equal(1);
      const calls = await watch.clientCallsByNode(scripts);
      const moves: Array<[WatchedNode, string]> = onCluster()
        ? [
            [home, "evalsha_ro getQueueAttributes"],
            [dead, "evalsha redriveClaim"],
            [home, "evalsha redriveCopy"],
            [dead, "evalsha deleteMessages"],
          ]
        : [[home, "evalsha redrive"]];
      expect(calls).to.deep.equal(callsByNode([[dead, "evalsha_ro readMessage"], ...moves]));
      expect(await client.zRange(keysOf(ns, "src").messages, 0, -1)).to.deep.equal([id]);
    });

    it("rejects a malformed id before any round trip", async () => {
      await rsmq.listQueuesAsync();
      const commands = await watchDuring(async () => {
        expect(await errorOf(rsmq.redriveAsync({ from: "dlq", id: "not an id" }))).to.include({
          name: "invalidFormat",
          message: "Invalid id format",
        });
        expect(await errorOf(rsmq.redriveAsync({ from: "dlq", id: 5 as never }))).to.include({ name: "invalidFormat" });
      });
      expect(commands).to.deep.equal([]);
    });
  });

  describe("filters: reason and the last error", () => {
    /** A dead-letter queue of four, each a different pair of reason and last error, in this order. */
    const stopped = async (): Promise<Record<"poisonBad" | "exhaustedTimeout" | "poisonTimeout" | "exhaustedBad", string>> => ({
      poisonBad: await deadLetterOne(rsmq, "src", "dlq", "p1", { reason: "poison", error: "bad payload" }),
      exhaustedTimeout: await deadLetterOne(rsmq, "src", "dlq", "e1", { reason: "exhausted", error: "timeout" }),
      poisonTimeout: await deadLetterOne(rsmq, "src", "dlq", "p2", { reason: "poison", error: "timeout" }),
      exhaustedBad: await deadLetterOne(rsmq, "src", "dlq", "e2", { reason: "exhausted", error: "bad payload" }),
    });
    const notesOf = async (ids: string[]): Promise<unknown[]> =>
      Promise.all(ids.map(async (id) => JSON.parse((await client.hGet(keysOf(ns, "dlq").hash, `${id}:dl`)) ?? "null") as unknown));
    const inQueue = async (qname: string): Promise<string[]> => (await client.zRange(keysOf(ns, qname).messages, 0, -1)).sort();

    it("reason: moves exactly the messages that stopped for it; the others stay, with why", async () => {
      const ids = await stopped();
      const staying = [ids.exhaustedTimeout, ids.exhaustedBad];
      const notesBefore = await notesOf(staying);
      expect(await rsmq.redriveAsync({ from: "dlq", reason: "poison" })).to.equal(2);
      expect(await inQueue("src")).to.deep.equal([ids.poisonBad, ids.poisonTimeout].sort());
      expect(await fieldsOf("src")).to.deep.equal([ids.poisonBad, ids.poisonTimeout].sort());
      expect(await inQueue("dlq")).to.deep.equal([...staying].sort());
      expect(await notesOf(staying)).to.deep.equal(notesBefore);
      expect(notesBefore.map((note) => (note as { reason: string }).reason)).to.deep.equal(["exhausted", "exhausted"]);
      expect(await rsmq.redriveAsync({ from: "dlq", reason: "poison" })).to.equal(0);
      expect(await rsmq.redriveAsync({ from: "dlq", reason: "exhausted" })).to.equal(2);
      expect(await client.zCard(keysOf(ns, "dlq").messages)).to.equal(0);
    });

    it("error: moves exactly the messages whose last error is that text, whatever the reason", async () => {
      const ids = await stopped();
      expect(await rsmq.redriveAsync({ from: "dlq", error: "timeout" })).to.equal(2);
      expect(await inQueue("src")).to.deep.equal([ids.exhaustedTimeout, ids.poisonTimeout].sort());
      expect(await inQueue("dlq")).to.deep.equal([ids.poisonBad, ids.exhaustedBad].sort());
      expect(await fieldsOf("dlq")).to.deep.equal(
        [ids.poisonBad, `${ids.poisonBad}:dl`, ids.exhaustedBad, `${ids.exhaustedBad}:dl`].sort(),
      );
      // The exact text: not a part of it, nor another case.
      expect(await rsmq.redriveAsync({ from: "dlq", error: "bad" })).to.equal(0);
      expect(await rsmq.redriveAsync({ from: "dlq", error: "Bad payload" })).to.equal(0);
      expect(await inQueue("dlq")).to.deep.equal([ids.poisonBad, ids.exhaustedBad].sort());
    });

    it("both: only the messages matching each; with `to`, and limit counting moved messages only", async () => {
      const ids = await stopped();
      expect(await rsmq.redriveAsync({ from: "dlq", reason: "exhausted", error: "bad payload" })).to.equal(1);
      expect(await inQueue("src")).to.deep.equal([ids.exhaustedBad]);
      expect(await inQueue("dlq")).to.deep.equal([ids.poisonBad, ids.exhaustedTimeout, ids.poisonTimeout].sort());

      // The front message does not match: passed over, and the limit still moves one.
      await rsmq.createQueueAsync({ qname: "review" });
      expect(await rsmq.redriveAsync({ from: "dlq", to: "review", error: "timeout", limit: 1 })).to.equal(1);
      expect(await inQueue("review")).to.deep.equal([ids.exhaustedTimeout]);
      expect(await inQueue("dlq")).to.deep.equal([ids.poisonBad, ids.poisonTimeout].sort());
      expect((await notesOf([ids.poisonBad, ids.poisonTimeout])).map((note) => (note as { error: string }).error)).to.deep.equal([
        "bad payload",
        "timeout",
      ]);
    });

    it("passes over messages without a dead-letter record, even with `to`", async () => {
      await rsmq.createQueueAsync({ qname: "dlq" });
      const plain = await rsmq.sendMessageAsync({ qname: "dlq", message: "plain" });
      const poison = await deadLetterOne(rsmq, "src", "dlq", "p", { reason: "poison" });
      expect(await rsmq.redriveAsync({ from: "dlq", to: "src", reason: "poison" })).to.equal(1);
      expect(await inQueue("dlq")).to.deep.equal([plain]);
      expect(await inQueue("src")).to.deep.equal([poison]);
      expect(await rsmq.redriveAsync({ from: "dlq", to: "src", error: "boom" })).to.equal(0);
    });

    it("rejects a bad reason or error before any round trip, nothing changed", async () => {
      await stopped();
      const bad: Array<[Record<string, unknown>, string]> = [
        [{ from: "dlq", reason: "other" }, 'reason must be "poison", "exhausted" or "expired"'],
        [{ from: "dlq", reason: "Poison" }, 'reason must be "poison", "exhausted" or "expired"'],
        [{ from: "dlq", reason: 1 }, 'reason must be "poison", "exhausted" or "expired"'],
        [{ from: "dlq", reason: "" }, 'reason must be "poison", "exhausted" or "expired"'],
        [{ from: "dlq", error: 42 }, "error must be a string"],
        [{ from: "dlq", error: { message: "timeout" } }, "error must be a string"],
        [{ from: "dlq", reason: "poison", error: ["timeout"] }, "error must be a string"],
      ];
      const before = await exactState(client, ns);
      await rsmq.listQueuesAsync(); // connected before watching
      const commands = await watchDuring(async () => {
        for (const [options, message] of bad) {
          expect(await errorOf(rsmq.redriveAsync(options as never)), JSON.stringify(options)).to.include({ name: "invalidValue", message });
        }
      });
      expect(commands).to.deep.equal([]);
      expect(await exactState(client, ns)).to.deep.equal(before);
    });
  });

  it("rejects bad options before any round trip", async () => {
    const bad: Array<[Record<string, unknown> | undefined, string, string]> = [
      [undefined, "missingParameter", "No from supplied"],
      [{}, "missingParameter", "No from supplied"],
      [{ from: "" }, "missingParameter", "No from supplied"],
      [{ from: "bad name" }, "invalidFormat", "Invalid from format"],
      [{ from: "dlq", to: "bad name" }, "invalidFormat", "Invalid to format"],
      [{ from: "dlq", to: "QUEUES" }, "invalidFormat", 'Invalid to format: "QUEUES" is reserved for the queue list'],
      [{ from: "dlq", to: "dlq" }, "invalidValue", "to must be another queue than from"],
      [{ from: "dlq", limit: 0 }, "invalidValue", "limit must be an integer from 1 up"],
      [{ from: "dlq", limit: 1.5 }, "invalidValue", "limit must be an integer from 1 up"],
      [{ from: "dlq", limit: -1 }, "invalidValue", "limit must be an integer from 1 up"],
      [{ from: "dlq", limit: NaN }, "invalidValue", "limit must be an integer from 1 up"],
      [{ from: "dlq", limit: "2" }, "invalidValue", "limit must be an integer from 1 up"],
    ];
    await rsmq.listQueuesAsync(); // connected before watching
    const commands = await watchDuring(async () => {
      for (const [options, name, message] of bad) {
        expect(await errorOf(rsmq.redriveAsync(options as never)), JSON.stringify(options)).to.include({ name, message });
      }
    });
    expect(commands).to.deep.equal([]);
  });

  it("has a callback form", async () => {
    await deadLetterOne(rsmq, "src", "dlq", "m");
    const moved = await new Promise<unknown>((resolve, reject) =>
      rsmq.redrive({ from: "dlq" }, (error: Error | null, count?: number) => (error ? reject(error) : resolve(count))),
    );
    expect(moved).to.equal(1);
  });
});
