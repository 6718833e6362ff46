/**
 * The batch APIs: receiveMessages takes up to `count` due messages and deleteMessages deletes many
 * ids, each in one EVALSHA. Order is FIFO, counts are bounded (1..1000), nextDueMs appears only
 * when fewer than `count` were due, deleteMessages answers per id, and bad input is rejected with
 * no command sent. The data each leaves behind equals what the single-message calls leave.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { DueWindow } from "../support/due-window";
import { rejectionOf } from "../support/old-rsmq";
import { connectionOptions, plainClient, uniqueNs } from "../support/server";
import { snapshot } from "../support/state";
import { WriteWatch, watchedAsync } from "../support/written-data";
import { clientCommands, monitor } from "../support/wire";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

type QueueMessage = RedisSMQ.QueueMessage;

describe("batch APIs", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  /** For the server's clock: each nextDueMs range is derived from TIME read around the calls (due-window.ts). */
  let clock: RedisClientType;

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
    clock = await plainClient();
  });
  afterEach(async () => {
    await rsmq.quitAsync();
    await clock.quit();
  });

  /** Sends one after another, so the send order is the id (and score) order. */
  async function sendInOrder(instance: RedisSMQ, bodies: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const message of bodies) ids.push(await instance.sendMessageAsync({ qname: "q", message }));
    return ids;
  }

  /**
   * Two fresh instances, each on a namespace of its own with queue "q", whose calls run inside a
   * WriteWatch each (written-data.ts), so what they write is checked at the byte level before
   * their snapshots are compared. Quit both with `close()`.
   */
  async function watchedPair(): Promise<{
    one: RedisSMQ;
    two: RedisSMQ;
    watchOne: WriteWatch;
    watchTwo: WriteWatch;
    compare(): Promise<void>;
    close(): Promise<void>;
  }> {
    const client = await plainClient();
    const [nsOne, nsTwo] = [uniqueNs(), uniqueNs()];
    const [watchOne, watchTwo] = [new WriteWatch(client, nsOne), new WriteWatch(client, nsTwo)];
    const [rawOne, rawTwo] = [new RedisSMQ(connectionOptions(nsOne)), new RedisSMQ(connectionOptions(nsTwo))];
    const one = watchedAsync(rawOne, watchOne);
    const two = watchedAsync(rawTwo, watchTwo);
    await one.createQueueAsync({ qname: "q" });
    await two.createQueueAsync({ qname: "q" });
    return {
      one,
      two,
      watchOne,
      watchTwo,
      async compare() {
        watchOne.assertClean("the batch call's instance");
        watchTwo.assertClean("the single calls' instance");
        const batched = JSON.stringify(await snapshot(client, nsOne, watchOne))
          .split(nsOne)
          .join("NS");
        const single = JSON.stringify(await snapshot(client, nsTwo, watchTwo))
          .split(nsTwo)
          .join("NS");
        expect(batched).to.equal(single);
      },
      async close() {
        await Promise.all([rawOne.quitAsync(), rawTwo.quitAsync()]);
        await client.quit();
      },
    };
  }

  /** Expects `action` to reject with name and message, having sent nothing to Redis. */
  async function expectInputError(action: () => Promise<unknown>, name: string, message: string | RegExp): Promise<void> {
    let error: Error | undefined;
    const commands = await monitor(async () => {
      error = await rejectionOf(action());
    });
    expect(error!.name).to.equal(name);
    if (typeof message === "string") expect(error!.message).to.equal(message);
    else expect(error!.message).to.match(message);
    expect(clientCommands(commands)).to.deep.equal([]);
  }

  describe("receiveMessages", () => {
    it("is one EVALSHA for a whole batch", async () => {
      await rsmq.receiveMessagesAsync({ qname: "q", count: 1 }); // the server now has the script cached
      await sendInOrder(rsmq, ["a", "b", "c", "d", "e"]);
      let result: RedisSMQ.ReceivedMessages | undefined;
      const commands = await monitor(async () => {
        result = await rsmq.receiveMessagesAsync({ qname: "q", count: 5 });
      });
      expect(clientCommands(commands)).to.deep.equal(["evalsha"]);
      expect(result!.messages).to.have.length(5);
    });

    it("returns messages in FIFO order, at most `count`, without nextDueMs when `count` came back", async () => {
      const ids = await sendInOrder(rsmq, ["m1", "m2", "m3", "m4", "m5"]);
      const window = await DueWindow.open(clock);
      const first = await rsmq.receiveMessagesAsync({ qname: "q", count: 3 });
      expect(first.messages.map((m) => m.id)).to.deep.equal(ids.slice(0, 3));
      expect(first.messages.map((m) => m.message)).to.deep.equal(["m1", "m2", "m3"]);
      expect(Object.keys(first)).to.deep.equal(["messages"]);

      // Fewer than asked: the rest, and when the next is due (the in-flight ones, vt 30 s).
      const second = await rsmq.receiveMessagesAsync({ qname: "q", count: 10 });
      expect(second.messages.map((m) => m.id)).to.deep.equal(ids.slice(3));
      expect(Object.keys(second).sort()).to.deep.equal(["messages", "nextDueMs"]);
      expect(second.nextDueMs).to.be.within(...(await window.range(30_000)));

      const third = await rsmq.receiveMessagesAsync({ qname: "q", count: 1 });
      expect(third.messages).to.deep.equal([]);
      expect(third.nextDueMs).to.be.within(...(await window.range(30_000)));
    });

    it("exactly `count` due: no nextDueMs (not looked up), even though more are queued later", async () => {
      await sendInOrder(rsmq, ["a", "b"]);
      await rsmq.sendMessageAsync({ qname: "q", message: "later", delay: 60 });
      const result = await rsmq.receiveMessagesAsync({ qname: "q", count: 2 });
      expect(result.messages).to.have.length(2);
      expect("nextDueMs" in result).to.equal(false);
    });

    it("reports null for an empty queue and the delay for a delayed message", async () => {
      expect(await rsmq.receiveMessagesAsync({ qname: "q", count: 5 })).to.deep.equal({ messages: [], nextDueMs: null });
      const window = await DueWindow.open(clock);
      await rsmq.sendMessageAsync({ qname: "q", message: "later", delay: 10 });
      const result = await rsmq.receiveMessagesAsync({ qname: "q", count: 5 });
      expect(result.messages).to.deep.equal([]);
      expect(result.nextDueMs).to.be.within(...(await window.range(10_000)));
    });

    it("hides for the given vt, counts receives per message (rc) and keeps the first receive time", async () => {
      const [id] = await sendInOrder(rsmq, ["a"]);
      const first = await rsmq.receiveMessagesAsync({ qname: "q", count: 5, vt: 0 });
      expect(first.messages.map((m) => [m.id, m.rc])).to.deep.equal([[id, 1]]);
      // vt 0: visible again at once, so the same message comes back with rc 2 and the same fr.
      const window = await DueWindow.open(clock);
      const second = await rsmq.receiveMessagesAsync({ qname: "q", count: 5, vt: 7 });
      expect(second.messages.map((m) => [m.id, m.rc])).to.deep.equal([[id, 2]]);
      expect(second.messages[0].fr).to.equal(first.messages[0].fr);
      expect(second.nextDueMs).to.be.within(...(await window.range(7_000)));
    });

    it("returns rsmq's message shape, as receiveMessage does", async () => {
      await sendInOrder(rsmq, ["a", "b"]);
      const [batched] = (await rsmq.receiveMessagesAsync({ qname: "q", count: 1 })).messages;
      const single = (await rsmq.receiveMessageAsync({ qname: "q" })) as QueueMessage;
      expect(Object.keys(batched).sort()).to.deep.equal(Object.keys(single).sort());
      for (const key of Object.keys(single) as Array<keyof QueueMessage>) {
        expect(typeof batched[key], key).to.equal(typeof single[key]);
      }
      expect(batched.sent).to.equal(parseInt(batched.id.slice(0, 10), 36) / 1000);
    });

    it("leaves the same data as the same number of receiveMessage calls", async () => {
      const pair = await watchedPair();
      try {
        await sendInOrder(pair.one, ["a", "b", "c", "d"]);
        await sendInOrder(pair.two, ["a", "b", "c", "d"]);
        // One label for the batch and the three receives: their first receives compare alike.
        await watchedAsync(pair.one, pair.watchOne, "receive").receiveMessagesAsync({ qname: "q", count: 3, vt: 20 });
        for (let i = 0; i < 3; i += 1) await watchedAsync(pair.two, pair.watchTwo, "receive").receiveMessageAsync({ qname: "q", vt: 20 });
        await pair.compare();
      } finally {
        await pair.close();
      }
    });

    it("accepts count 1000", async () => {
      const result = await rsmq.receiveMessagesAsync({ qname: "q", count: 1000 });
      expect(result).to.deep.equal({ messages: [], nextDueMs: null });
    });

    it("rejects a missing queue with queueNotFound", async () => {
      const error = await rejectionOf(rsmq.receiveMessagesAsync({ qname: "nope", count: 2 }));
      expect([error.name, error.message]).to.deep.equal(["queueNotFound", "Queue not found"]);
    });

    it("rejects a bad count with invalidValue, sending nothing", async () => {
      const message = "count must be an integer between 1 and 1000";
      for (const count of [0, -1, 1001, 1.5, NaN, Infinity, "3", null, undefined]) {
        await expectInputError(
          () => rsmq.receiveMessagesAsync({ qname: "q", count } as unknown as RedisSMQ.ReceiveMessagesOptions),
          "invalidValue",
          message,
        );
      }
    });

    it("rejects bad qname and vt as receiveMessage does, sending nothing", async () => {
      await expectInputError(
        () => rsmq.receiveMessagesAsync({ count: 1 } as RedisSMQ.ReceiveMessagesOptions),
        "missingParameter",
        "No qname supplied",
      );
      await expectInputError(() => rsmq.receiveMessagesAsync({ qname: "bad name", count: 1 }), "invalidFormat", "Invalid qname format");
      await expectInputError(
        () => rsmq.receiveMessagesAsync({ qname: "q", count: 1, vt: -1 }),
        "invalidValue",
        "vt must be between 0 and 9999999",
      );
      await expectInputError(() => rsmq.receiveMessagesAsync({ qname: "QUEUES", count: 1 }), "invalidFormat", /reserved/);
    });

    it("has a callback form, called asynchronously", async () => {
      await sendInOrder(rsmq, ["a"]);
      let sync = true;
      const result = await new Promise<RedisSMQ.ReceivedMessages>((resolve, reject) => {
        rsmq.receiveMessages({ qname: "q", count: 2 }, (error, value) => (error ? reject(error) : resolve(value)));
        sync = false;
      });
      expect(sync).to.equal(false);
      expect(result.messages.map((m) => m.message)).to.deep.equal(["a"]);
      const error = await new Promise<Error>((resolve) => rsmq.receiveMessages({ qname: "q", count: 0 }, (err) => resolve(err as Error)));
      expect(error.name).to.equal("invalidValue");
    });
  });

  describe("deleteMessages", () => {
    it("is one EVALSHA and answers 1 or 0 per id, in order", async () => {
      const [a, b, c] = await sendInOrder(rsmq, ["a", "b", "c"]);
      const unknown = "aaaaaaaaaa" + "b".repeat(22);
      await rsmq.deleteMessagesAsync({ qname: "q", ids: [unknown] }); // the server now has the script cached
      let result: Array<0 | 1> | undefined;
      const commands = await monitor(async () => {
        result = await rsmq.deleteMessagesAsync({ qname: "q", ids: [a, unknown, c] });
      });
      expect(clientCommands(commands)).to.deep.equal(["evalsha"]);
      expect(result).to.deep.equal([1, 0, 1]);
      // b is untouched.
      const left = await rsmq.receiveMessagesAsync({ qname: "q", count: 10 });
      expect(left.messages.map((m) => m.id)).to.deep.equal([b]);
      // The same id twice: found the first time only.
      expect(await rsmq.deleteMessagesAsync({ qname: "q", ids: [b, b] })).to.deep.equal([1, 0]);
      expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);
    });

    it("leaves the same data as deleteMessage one id at a time", async () => {
      const pair = await watchedPair();
      try {
        const ids = await sendInOrder(pair.one, ["a", "b", "c", "d"]);
        const otherIds = await sendInOrder(pair.two, ["a", "b", "c", "d"]);
        // Received ones too, so their :rc and :fr fields must go as well.
        await pair.one.receiveMessagesAsync({ qname: "q", count: 2 });
        await pair.two.receiveMessagesAsync({ qname: "q", count: 2 });
        await pair.one.deleteMessagesAsync({ qname: "q", ids: [ids[0], ids[2], ids[3]] });
        for (const id of [otherIds[0], otherIds[2], otherIds[3]]) await pair.two.deleteMessageAsync({ qname: "q", id });
        await pair.compare();
      } finally {
        await pair.close();
      }
    });

    it("does not check that the queue exists, as deleteMessage does not: all 0", async () => {
      const id = "aaaaaaaaaa" + "b".repeat(22);
      expect(await rsmq.deleteMessagesAsync({ qname: "nope", ids: [id] })).to.deep.equal([0]);
      expect(await rsmq.deleteMessageAsync({ qname: "nope", id })).to.equal(0);
    });

    it("accepts 1000 ids", async () => {
      const ids = Array.from({ length: 1000 }, (_, i) => `aaaaaaaaaa${String(i).padStart(22, "0")}`);
      const result = await rsmq.deleteMessagesAsync({ qname: "q", ids });
      expect(result).to.have.length(1000);
      expect(result.every((found) => found === 0)).to.equal(true);
    });

    it("resolves [] for an empty list (what an empty receive gives), sending nothing", async () => {
      const [id] = await sendInOrder(rsmq, ["a"]);
      let result: unknown;
      const commands = await monitor(async () => {
        result = await rsmq.deleteMessagesAsync({ qname: "q", ids: [] });
      });
      expect(result).to.deep.equal([]);
      expect(clientCommands(commands)).to.deep.equal([]);
      // The batch example on an empty receive: nothing due, nothing deleted, no error.
      const { messages } = await rsmq.receiveMessagesAsync({ qname: "q", count: 5, vt: 60 });
      const none = await rsmq.receiveMessagesAsync({ qname: "q", count: 5 });
      expect(await rsmq.deleteMessagesAsync({ qname: "q", ids: none.messages.map((m) => m.id) })).to.deep.equal([]);
      expect(messages.map((m) => m.id)).to.deep.equal([id]);
      expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(1);
    });

    it("still checks the queue name for an empty list", async () => {
      await expectInputError(() => rsmq.deleteMessagesAsync({ qname: "bad name", ids: [] }), "invalidFormat", "Invalid qname format");
      await expectInputError(
        () => rsmq.deleteMessagesAsync({ ids: [] } as unknown as RedisSMQ.DeleteMessagesOptions),
        "missingParameter",
        "No qname supplied",
      );
    });

    it("rejects bad ids, sending nothing", async () => {
      const good = "aaaaaaaaaa" + "b".repeat(22);
      for (const ids of [undefined, null, "notanarray", {}]) {
        await expectInputError(
          () => rsmq.deleteMessagesAsync({ qname: "q", ids } as unknown as RedisSMQ.DeleteMessagesOptions),
          "missingParameter",
          "No ids supplied",
        );
      }
      await expectInputError(
        () => rsmq.deleteMessagesAsync({ qname: "q", ids: Array.from({ length: 1001 }, () => good) }),
        "invalidValue",
        "ids must hold at most 1000 ids",
      );
      await expectInputError(() => rsmq.deleteMessagesAsync({ qname: "q", ids: [good, "short"] }), "invalidFormat", "Invalid id format");
      await expectInputError(() => rsmq.deleteMessagesAsync({ qname: "q", ids: [good, ""] }), "missingParameter", "No id supplied");
      await expectInputError(() => rsmq.deleteMessagesAsync({ qname: "bad name", ids: [good] }), "invalidFormat", "Invalid qname format");
      await expectInputError(
        () => rsmq.deleteMessagesAsync({ ids: [good] } as RedisSMQ.DeleteMessagesOptions),
        "missingParameter",
        "No qname supplied",
      );
    });

    it("has a callback form", async () => {
      const [id] = await sendInOrder(rsmq, ["a"]);
      const result = await new Promise<Array<0 | 1>>((resolve, reject) =>
        rsmq.deleteMessages({ qname: "q", ids: [id] }, (error, value) => (error ? reject(error) : resolve(value))),
      );
      expect(result).to.deep.equal([1]);
    });
  });
});
