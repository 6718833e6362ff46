/**
 * The dead-letter move, both paths: the atomic script leaves a message in exactly one queue; the
 * two-step path (copy, then delete) interrupted between its steps leaves it in both, never in
 * neither, and running it again completes it without a duplicate. And peekMessages (and its
 * deprecated name peekDeadLetters): what it lists, in which order, with which states, that it
 * writes nothing, and in one EVALSHA. The default move is the
 * atomic script where the queues share a slot (one server, a hash-tag namespace) and the two-step
 * move across Redis Cluster slots; the scripts are told apart by sha, node by node.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { DeadLetterMover } from "../../lib/dead-letters/dead-letter-mover";
import type { StopRecord } from "../../lib/operations/dead-letter";
import { connectionOptions, keysOf, onCluster, plainClient, uniqueNs } from "../support/server";
import { asMessage } from "../support/old-rsmq";
import {
  CommandWatch,
  callsByNode,
  deadLetterOne,
  loadScripts,
  nodeOfQueue,
  nodeOfRegistry,
  scriptSha,
  serverNowMs,
  watchDuring,
} from "../support/retry";
import { exactState } from "../support/state";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

type QueueMessage = RedisSMQ.QueueMessage;

describe("Dead letters", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = new RedisSMQ(connectionOptions(ns));
    client = await plainClient();
    await rsmq.createQueueAsync({ qname: "src", vt: 60, delay: 3, maxsize: 4096 });
  });
  afterEach(async () => {
    await rsmq.quitAsync();
    await client.quit();
  });

  /** Sends and receives one message (rc 1, hidden for the queue's vt), as a worker holds it. */
  async function held(body: string): Promise<QueueMessage> {
    await rsmq.sendMessageAsync({ qname: "src", message: body, delay: 0 });
    return asMessage(await rsmq.receiveMessageAsync({ qname: "src" }));
  }

  const why: StopRecord = { source: "src", deliveries: 1, reason: "poison", error: "bad payload" };

  /** Where a message is: in each queue's sorted set and hash. */
  async function whereIs(id: string): Promise<{ src: [boolean, boolean]; dlq: [boolean, boolean] }> {
    const inQueue = async (qname: string): Promise<[boolean, boolean]> => [
      (await client.zScore(keysOf(ns, qname).messages, id)) !== null,
      await client.hExists(keysOf(ns, qname).hash, id),
    ];
    return { src: await inQueue("src"), dlq: await inQueue("dlq") };
  }

  const SCRIPTS = ["deadLetter", "deadLetterCopy", "hideMessage", "getQueueAttributes", "deleteMessage"];

  /**
   * The two-step move's calls, node by node: hold the message in the source (hideMessage), read
   * the source's settings and the message's attributes (one HMGET), list the dead-letter queue
   * (SADD to the registry), copy, then delete from the source.
   */
  async function twoStepCalls(source: string, dlq: string): Promise<Record<number, string[]>> {
    const [from, to, registry] = [await nodeOfQueue(ns, source), await nodeOfQueue(ns, dlq), await nodeOfRegistry(ns)];
    return callsByNode([
      [from, "evalsha hideMessage"],
      [from, "hmget"],
      [registry, "sadd"],
      [to, "evalsha deadLetterCopy"],
      [from, "evalsha deleteMessage"],
    ]);
  }

  /** The calls clients sent to the watched nodes while `action` ran. */
  async function callsDuring(action: () => Promise<unknown>): Promise<Record<number, string[]>> {
    await loadScripts(client, SCRIPTS);
    const watch = await CommandWatch.open();
    try {
      await action();
      return await watch.clientCallsByNode(SCRIPTS);
    } finally {
      await watch.close();
    }
  }

  // Forced with `atomic: false`, so on one server too: there the queues could share a script.
  describe("the two-step move (queues that cannot share a script)", () => {
    it("interrupted after the copy: the message is in both queues, never in neither; running it again completes it once", async () => {
      const message = await held("order 17");
      const crashing = new DeadLetterMover(internalsOf(rsmq), {
        atomic: false,
        afterCopy: () => {
          throw new Error("crash");
        },
      });
      const before = await serverNowMs(client);
      let failure: unknown;
      await crashing.move("src", "dlq", message, why).catch((error: unknown) => (failure = error));
      expect(failure).to.be.instanceOf(Error).with.property("message", "crash");

      // Both copies exist in full: the source still holds it (with its rc), the DLQ has body and why.
      expect(await whereIs(message.id)).to.deep.equal({ src: [true, true], dlq: [true, true] });
      expect(await client.hGet(keysOf(ns, "src").hash, `${message.id}:rc`)).to.equal("1");
      expect(await client.hGet(keysOf(ns, "dlq").hash, message.id)).to.equal("order 17");
      const note = JSON.parse((await client.hGet(keysOf(ns, "dlq").hash, `${message.id}:dl`))!) as Record<string, unknown>;
      expect(note).to.include({ source: "src", deliveries: 1, reason: "poison", error: "bad payload" });
      expect(note.at).to.be.within(before, await serverNowMs(client));
      // The dead-letter queue was created with the source's settings and registered.
      expect(await rsmq.getQueueAttributesAsync({ qname: "dlq" })).to.include({ vt: 60, delay: 3, maxsize: 4096, msgs: 1, totalsent: 1 });
      expect(await rsmq.listQueuesAsync()).to.have.members(["src", "dlq"]);

      // Again, without the crash: done, and the copy was not counted twice.
      const mover = new DeadLetterMover(internalsOf(rsmq), { atomic: false });
      expect(await mover.move("src", "dlq", message, why)).to.equal(true);
      expect(await whereIs(message.id)).to.deep.equal({ src: [false, false], dlq: [true, true] });
      expect(await client.hKeys(keysOf(ns, "src").hash)).to.not.include.members([`${message.id}:rc`, `${message.id}:fr`]);
      expect(await client.zCard(keysOf(ns, "dlq").messages)).to.equal(1);
      expect(await rsmq.getQueueAttributesAsync({ qname: "dlq" })).to.include({ msgs: 1, totalsent: 1 });
      const [peeked] = await rsmq.peekDeadLettersAsync({ qname: "dlq" });
      expect(peeked).to.include({ id: message.id, message: "order 17" });
      expect(peeked.deadLetter).to.include({ source: "src", deliveries: 1, reason: "poison", error: "bad payload" });
    });

    it("a crash in an async afterCopy (rejected promise) leaves it in both queues too", async () => {
      const message = await held("m");
      const crashing = new DeadLetterMover(internalsOf(rsmq), { atomic: false, afterCopy: () => Promise.reject(new Error("crash")) });
      let failure: unknown;
      await crashing.move("src", "dlq", message, why).catch((error: unknown) => (failure = error));
      expect(failure).to.have.property("message", "crash");
      expect(await whereIs(message.id)).to.deep.equal({ src: [true, true], dlq: [true, true] });
    });

    it("uncrashed, it moves the message and keeps it visible now in the dead-letter queue with rc reset", async () => {
      const message = await held("m");
      let moved: boolean | undefined;
      const calls = await callsDuring(
        async () => (moved = await new DeadLetterMover(internalsOf(rsmq), { atomic: false }).move("src", "dlq", message, why)),
      );
      expect(moved).to.equal(true);
      // Hold, settings and attributes, list, copy, delete: each on the node of its key (all one server there).
      expect(calls).to.deep.equal(await twoStepCalls("src", "dlq"));
      expect(await whereIs(message.id)).to.deep.equal({ src: [false, false], dlq: [true, true] });
      const again = asMessage(await rsmq.receiveMessageAsync({ qname: "dlq" }));
      expect(again).to.include({ id: message.id, message: "m", rc: 1 });
    });

    it("a message no longer in the source: false, and nothing written", async () => {
      const message = await held("m");
      await rsmq.deleteMessageAsync({ qname: "src", id: message.id });
      const before = await exactState(client, ns);
      expect(await new DeadLetterMover(internalsOf(rsmq), { atomic: false }).move("src", "dlq", message, why)).to.equal(false);
      expect(await exactState(client, ns)).to.deep.equal(before);
    });
  });

  describe("the default move: the atomic script where both queues share a slot, else the two-step move", () => {
    it("is one deadLetter EVALSHA on one server; in a cluster (queues in different slots) the two-step move, node by node", async () => {
      const message = await held("m");
      let moved: boolean | undefined;
      const calls = await callsDuring(async () => (moved = await new DeadLetterMover(internalsOf(rsmq)).move("src", "dlq", message, why)));
      expect(moved).to.equal(true);
      if (onCluster()) {
        // "src" and "dlq" are different hash tags: no script may touch both.
        expect(calls).to.deep.equal(await twoStepCalls("src", "dlq"));
      } else {
        expect(calls).to.deep.equal(callsByNode([[await nodeOfQueue(ns, "src"), "evalsha deadLetter"]]));
      }
      expect(await whereIs(message.id)).to.deep.equal({ src: [false, false], dlq: [true, true] });
    });

    it("under a namespace that is a hash tag every queue shares one slot, so the move is the atomic script on either target", async () => {
      const taggedNs = `{${uniqueNs()}}`;
      const tagged = new RedisSMQ(connectionOptions(taggedNs));
      try {
        await tagged.createQueueAsync({ qname: "src" });
        await tagged.sendMessageAsync({ qname: "src", message: "m" });
        const message = asMessage(await tagged.receiveMessageAsync({ qname: "src" }));
        // The node of the namespace's one slot, looked up before watching (the harness asks the nodes).
        const node = await nodeOfQueue(taggedNs, "src");
        await loadScripts(client, SCRIPTS);
        const watch = await CommandWatch.open();
        let moved: boolean;
        try {
          moved = await new DeadLetterMover(internalsOf(tagged)).move("src", "dlq", message, why);
          const calls = await watch.clientCalls(SCRIPTS);
          // One script, with rsmq's own key names.
          expect(calls).to.deep.equal([`${node.port} evalsha deadLetter`]);
          const [script] = await watch.scriptCalls("deadLetter");
          expect(script.args.slice(2, 8)).to.deep.equal([
            "5",
            `${taggedNs}:src`,
            `${taggedNs}:src:Q`,
            `${taggedNs}:dlq`,
            `${taggedNs}:dlq:Q`,
            `${taggedNs}:QUEUES`,
          ]);
        } finally {
          await watch.close();
        }
        expect(moved).to.equal(true);
        const [peeked] = await tagged.peekDeadLettersAsync({ qname: "dlq" });
        expect(peeked).to.include({ id: message.id, message: "m" });
        expect(peeked.deadLetter).to.include({ source: "src", deliveries: 1, reason: "poison", error: "bad payload" });
        expect(await tagged.listQueuesAsync()).to.have.members(["src", "dlq"]);
      } finally {
        await tagged.quitAsync();
      }
    });

    it("leaves the message in exactly one queue, with rc and fr gone, visible now, the DLQ made with the source's settings", async () => {
      const message = await held("order 18");
      const before = await serverNowMs(client);
      expect(await new DeadLetterMover(internalsOf(rsmq)).move("src", "dlq", message, why)).to.equal(true);
      const after = await serverNowMs(client);
      expect(await whereIs(message.id)).to.deep.equal({ src: [false, false], dlq: [true, true] });
      const srcFields = await client.hKeys(keysOf(ns, "src").hash);
      expect(srcFields.filter((field) => field.startsWith(message.id))).to.deep.equal([]);
      const dlqFields = await client.hKeys(keysOf(ns, "dlq").hash);
      expect(dlqFields.filter((field) => field.startsWith(message.id)).sort()).to.deep.equal([message.id, `${message.id}:dl`]);
      expect(await client.zScore(keysOf(ns, "dlq").messages, message.id)).to.be.within(before, after);
      expect(await rsmq.getQueueAttributesAsync({ qname: "dlq" })).to.include({
        vt: 60,
        delay: 3,
        maxsize: 4096,
        msgs: 1,
        totalsent: 1,
        hiddenmsgs: 0,
      });
      expect(await rsmq.listQueuesAsync()).to.have.members(["src", "dlq"]);
    });

    it("into an existing dead-letter queue: keeps that queue's settings, counts totalsent", async () => {
      await rsmq.createQueueAsync({ qname: "dlq", vt: 5, delay: 0, maxsize: 65536 });
      await deadLetterOne(rsmq, "src", "dlq", "one");
      await deadLetterOne(rsmq, "src", "dlq", "two");
      expect(await rsmq.getQueueAttributesAsync({ qname: "dlq" })).to.include({ vt: 5, delay: 0, maxsize: 65536, msgs: 2, totalsent: 2 });
    });

    it("a message no longer in the source (or moved already): false, and nothing written", async () => {
      const message = await held("m");
      const mover = new DeadLetterMover(internalsOf(rsmq));
      await rsmq.deleteMessageAsync({ qname: "src", id: message.id });
      let before = await exactState(client, ns);
      expect(await mover.move("src", "dlq", message, why)).to.equal(false);
      expect(await exactState(client, ns)).to.deep.equal(before);
      expect(await client.exists([keysOf(ns, "dlq").messages, keysOf(ns, "dlq").hash])).to.equal(0);

      const other = await held("n");
      expect(await mover.move("src", "dlq", other, why)).to.equal(true);
      before = await exactState(client, ns);
      expect(await mover.move("src", "dlq", other, why)).to.equal(false);
      expect(await exactState(client, ns)).to.deep.equal(before);
      expect(await client.zCard(keysOf(ns, "dlq").messages)).to.equal(1);
    });
  });

  describe("peekMessages", () => {
    /** The `sent` an id carries (its first 10 characters: send time in µs, base 36), in ms. */
    const sentOf = (id: string): number => parseInt(id.slice(0, 10), 36) / 1000;

    it("lists any queue's first messages in receive order, each with its state, due time and receive count", async () => {
      const dead = await deadLetterOne(rsmq, "src", "dlq", "dead", { deliveries: 4, error: "gave up" });
      // In src (vt 60, delay 3): received, so hidden for 60 s; due now; sent with the queue's delay.
      await rsmq.sendMessageAsync({ qname: "src", message: "in flight", delay: 0 });
      const inFlight = asMessage(await rsmq.receiveMessageAsync({ qname: "src" })).id;
      const visible = await rsmq.sendMessageAsync({ qname: "src", message: "visible", delay: 0 });
      const delayed = await rsmq.sendMessageAsync({ qname: "src", message: "delayed" });
      const score = async (qname: string, id: string): Promise<number> => Number(await client.zScore(keysOf(ns, qname).messages, id));

      const peeked = await rsmq.peekMessagesAsync({ qname: "src" });
      expect(peeked).to.deep.equal([
        { id: visible, message: "visible", sent: sentOf(visible), state: "visible", dueAt: await score("src", visible), receiveCount: 0 },
        { id: delayed, message: "delayed", sent: sentOf(delayed), state: "delayed", dueAt: await score("src", delayed), receiveCount: 0 },
        {
          id: inFlight,
          message: "in flight",
          sent: sentOf(inFlight),
          state: "inFlight",
          dueAt: await score("src", inFlight),
          receiveCount: 1,
        },
      ]);
      // A dead letter: a new message in its queue, visible at once, never received, with why.
      const [letter] = await rsmq.peekMessagesAsync({ qname: "dlq" });
      expect(letter).to.deep.include({
        id: dead,
        message: "dead",
        sent: sentOf(dead),
        state: "visible",
        dueAt: await score("dlq", dead),
        receiveCount: 0,
      });
      expect(letter.deadLetter).to.include({ source: "src", deliveries: 4, reason: "exhausted", error: "gave up" });
    });

    it("the first `count` (default 10, up to 1000): the messages peekDeadLetters gives, with their states", async () => {
      for (let i = 1; i <= 12; i++) await deadLetterOne(rsmq, "src", "dlq", `body ${i}`, { deliveries: i });
      await rsmq.sendMessageAsync({ qname: "dlq", message: "plain", delay: 60 });
      const order = await client.zRange(keysOf(ns, "dlq").messages, 0, -1);
      const withState = ["state", "dueAt", "receiveCount"];
      const plain = (entry: RedisSMQ.MessageWithState): object =>
        Object.fromEntries(Object.entries(entry).filter(([key]) => !withState.includes(key)));

      expect((await rsmq.peekMessagesAsync({ qname: "dlq" })).map((entry) => entry.id)).to.deep.equal(order.slice(0, 10));
      expect((await rsmq.peekMessagesAsync({ qname: "dlq", count: 3 })).map((entry) => entry.id)).to.deep.equal(order.slice(0, 3));
      const all = await rsmq.peekMessagesAsync({ qname: "dlq", count: 1000 });
      expect(all.map((entry) => entry.id)).to.deep.equal(order);
      expect(all.map((entry) => entry.state)).to.deep.equal([...Array(12).fill("visible"), "delayed"]);
      // The deprecated name: the same messages, in the same order, without the state fields.
      expect(all.map(plain)).to.deep.equal(await rsmq.peekDeadLettersAsync({ qname: "dlq", count: 1000 }));
    });

    it("writes nothing and is one EVALSHA_RO of the read-only messagePage script, on the queue's node", async () => {
      await deadLetterOne(rsmq, "src", "dlq", "a");
      await loadScripts(client, ["messagePage"]);
      const before = await exactState(client, ns);
      let peeked: unknown[] = [];
      const commands = await watchDuring(async () => (peeked = await rsmq.peekMessagesAsync({ qname: "dlq" })));
      expect(peeked).to.have.length(1);
      const calls = commands.filter((command) => !command.fromScript);
      expect(calls.map((command) => [command.node, command.args[0], command.args[1]])).to.deep.equal([
        [(await nodeOfQueue(ns, "dlq")).port, "evalsha_ro", scriptSha("messagePage")],
      ]);
      const writes = ["zadd", "zrem", "hset", "hdel", "hincrby", "sadd", "del", "set", "expire"];
      expect(commands.filter((command) => writes.includes(command.args[0]))).to.deep.equal([]);
      expect(await exactState(client, ns)).to.deep.equal(before);
    });

    it("an empty queue: []; a missing queue: queueNotFound; bad input rejected before any round trip", async () => {
      expect(await rsmq.peekMessagesAsync({ qname: "src" })).to.deep.equal([]);
      const missing = await rsmq.peekMessagesAsync({ qname: "nope" }).then(
        () => undefined,
        (error: Error) => error,
      );
      expect(missing).to.include({ name: "queueNotFound", message: "Queue not found" });
      const bad: Array<[Record<string, unknown>, string, string]> = [
        [{}, "missingParameter", "No qname supplied"],
        [{ qname: "bad name" }, "invalidFormat", "Invalid qname format"],
        [{ qname: "src", count: 0 }, "invalidValue", "count must be an integer between 1 and 1000"],
        [{ qname: "src", count: 1001 }, "invalidValue", "count must be an integer between 1 and 1000"],
        [{ qname: "src", count: "2" }, "invalidValue", "count must be an integer between 1 and 1000"],
      ];
      const commands = await watchDuring(async () => {
        for (const [options, name, message] of bad) {
          const error = await rsmq.peekMessagesAsync(options as never).then(
            () => undefined,
            (caught: Error) => caught,
          );
          expect(error, JSON.stringify(options)).to.include({ name, message });
        }
      });
      expect(commands).to.deep.equal([]);
    });

    it("has a callback form, bound like every method", async () => {
      await deadLetterOne(rsmq, "src", "dlq", "a");
      const { peekMessages } = rsmq;
      const result = await new Promise<RedisSMQ.MessageWithState[] | undefined>((resolve, reject) =>
        peekMessages({ qname: "dlq" }, (error, peeked) => (error ? reject(error) : resolve(peeked))),
      );
      expect(result!.map(({ message, state }) => [message, state])).to.deep.equal([["a", "visible"]]);
    });
  });

  // The deprecated name of peekMessages, kept for a release.
  describe("peekDeadLetters", () => {
    it("lists the first `count` (default 10) in receive order, with why, body, id and sent", async () => {
      const ids: string[] = [];
      for (let i = 1; i <= 12; i++) {
        ids.push(
          await deadLetterOne(rsmq, "src", "dlq", `body ${i}`, {
            deliveries: i,
            error: `error ${i}`,
            reason: i % 2 ? "poison" : "exhausted",
          }),
        );
      }
      // A message sent straight to the dead-letter queue has no `deadLetter`.
      const plainId = await rsmq.sendMessageAsync({ qname: "dlq", message: "plain" });
      const order = await client.zRange(keysOf(ns, "dlq").messages, 0, -1);

      const first = await rsmq.peekDeadLettersAsync({ qname: "dlq" });
      expect(first.map((entry) => entry.id)).to.deep.equal(order.slice(0, 10));
      const all = await rsmq.peekDeadLettersAsync({ qname: "dlq", count: 1000 });
      expect(all.map((entry) => entry.id)).to.deep.equal(order);
      expect(all).to.have.length(13);
      expect((await rsmq.peekDeadLettersAsync({ qname: "dlq", count: 3 })).map((entry) => entry.id)).to.deep.equal(order.slice(0, 3));

      for (const entry of all) {
        if (entry.id === plainId) {
          expect(entry).to.deep.equal({ id: plainId, message: "plain", sent: entry.sent });
          continue;
        }
        const i = ids.indexOf(entry.id) + 1;
        expect(i, entry.id).to.be.above(0);
        expect(entry.message).to.equal(`body ${i}`);
        expect(entry.deadLetter).to.include({ source: "src", deliveries: i, error: `error ${i}`, reason: i % 2 ? "poison" : "exhausted" });
        expect(entry.deadLetter!.at).to.be.a("number");
      }
      // sent is the send time from the id, as a receive reports it.
      const received = asMessage(await rsmq.receiveMessageAsync({ qname: "dlq" }));
      expect(all.find((entry) => entry.id === received.id)!.sent).to.equal(received.sent);
    });

    it("writes nothing and is one EVALSHA_RO", async () => {
      await deadLetterOne(rsmq, "src", "dlq", "a");
      await deadLetterOne(rsmq, "src", "dlq", "b");
      await loadScripts(client, ["peekDeadLetters"]);
      const before = await exactState(client, ns);
      let peeked: unknown[] = [];
      const commands = await watchDuring(async () => (peeked = await rsmq.peekDeadLettersAsync({ qname: "dlq" })));
      expect(peeked).to.have.length(2);
      expect(commands.filter((command) => !command.fromScript).map((command) => command.args[0])).to.deep.equal(["evalsha_ro"]);
      // The read-only script (flagged no-writes in a cluster), on the dead-letter queue's node.
      const [call] = commands.filter((command) => !command.fromScript);
      expect([call.node, call.args[1]]).to.deep.equal([(await nodeOfQueue(ns, "dlq")).port, scriptSha("peekDeadLetters")]);
      const writes = ["zadd", "zrem", "hset", "hdel", "hincrby", "sadd", "del", "set", "expire"];
      expect(commands.filter((command) => writes.includes(command.args[0]))).to.deep.equal([]);
      expect(await exactState(client, ns)).to.deep.equal(before);
    });

    it("an empty queue: []; a missing queue: queueNotFound; bad input rejected before any round trip", async () => {
      expect(await rsmq.peekDeadLettersAsync({ qname: "src" })).to.deep.equal([]);
      const missing = await rsmq.peekDeadLettersAsync({ qname: "nope" }).then(
        () => undefined,
        (error: Error) => error,
      );
      expect(missing).to.include({ name: "queueNotFound", message: "Queue not found" });
      const bad: Array<[Record<string, unknown>, string, string]> = [
        [{}, "missingParameter", "No qname supplied"],
        [{ qname: "bad name" }, "invalidFormat", "Invalid qname format"],
        [{ qname: "dlq", count: 0 }, "invalidValue", "count must be an integer between 1 and 1000"],
        [{ qname: "dlq", count: 1001 }, "invalidValue", "count must be an integer between 1 and 1000"],
        [{ qname: "dlq", count: 1.5 }, "invalidValue", "count must be an integer between 1 and 1000"],
      ];
      const commands = await watchDuring(async () => {
        for (const [options, name, message] of bad) {
          const error = await rsmq.peekDeadLettersAsync(options as never).then(
            () => undefined,
            (caught: Error) => caught,
          );
          expect(error, JSON.stringify(options)).to.include({ name, message });
        }
      });
      expect(commands).to.deep.equal([]);
    });

    it("has a callback form", async () => {
      await deadLetterOne(rsmq, "src", "dlq", "a");
      const result = await new Promise<unknown>((resolve, reject) =>
        rsmq.peekDeadLetters({ qname: "dlq" }, (error: Error | null, peeked?: unknown) => (error ? reject(error) : resolve(peeked))),
      );
      expect(result).to.have.length(1);
    });
  });
});
