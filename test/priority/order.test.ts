/**
 * Priorities (docs/priorities.md): a message visible at once is scored back 10^12 ms per level, so
 * every receive (receiveMessage, receiveMessages, popMessage, a Worker) takes a larger priority
 * first and, within a level, by send time. A priority out of range is refused before any round
 * trip, with nothing written.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { asMessage } from "../support/old-rsmq";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { allKeys, serverNowMs } from "../support/inspect";
import { monitor } from "../support/wire";
import { Cleanup, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

const { Worker } = RedisSMQ;

/** Sent in this order; received as RECEIVE_ORDER. */
const SENDS: Array<[string, number | undefined]> = [
  ["a0", undefined],
  ["b0", 0],
  ["c5", 5],
  ["d9", 9],
  ["e5", 5],
  ["f1", 1],
  ["g9", 9],
];
const RECEIVE_ORDER = ["d9", "g9", "c5", "e5", "f1", "a0", "b0"];

describe("Priorities: receive order", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;

  beforeEach(async () => {
    ns = uniqueNs("prio");
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    client = await plainClient();
    cleanup.add(() => client.quit());
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => cleanup.run());

  /** Sends SENDS one after the other, so that the send times within a level are in order. */
  async function sendAll(): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    for (const [message, priority] of SENDS) {
      ids.set(message, await rsmq.sendMessageAsync({ qname: "q", message, ...(priority === undefined ? {} : { priority }) }));
    }
    return ids;
  }

  it("receiveMessage: higher levels first, by send time within a level; `sent` is the id's send time", async () => {
    const ids = await sendAll();
    const got: string[] = [];
    for (let i = 0; i < SENDS.length; i += 1) {
      const message = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
      expect(message.id).to.equal(ids.get(message.message));
      expect(message.sent).to.equal(parseInt(message.id.slice(0, 10), 36) / 1000);
      got.push(message.message);
    }
    expect(got).to.deep.equal(RECEIVE_ORDER);
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
  });

  it("receiveMessages: one batch in the same order", async () => {
    await sendAll();
    const { messages } = await rsmq.receiveMessagesAsync({ qname: "q", count: 10 });
    expect(messages.map((m) => m.message)).to.deep.equal(RECEIVE_ORDER);
  });

  it("popMessage: the same order", async () => {
    await sendAll();
    const got: string[] = [];
    for (let i = 0; i < SENDS.length; i += 1) got.push(asMessage(await rsmq.popMessageAsync({ qname: "q" })).message);
    expect(got).to.deep.equal(RECEIVE_ORDER);
  });

  it("a Worker handles them in the same order (concurrency 1)", async () => {
    await sendAll();
    const handled: string[] = [];
    const worker = cleanup.worker(
      new Worker(rsmq, { qname: "q", concurrency: 1, batchSize: 1, handler: (message) => void handled.push(message.message) }),
    );
    worker.start();
    await waitFor(() => handled.length === SENDS.length, `${SENDS.length} handled`);
    await worker.stop();
    expect(handled).to.deep.equal(RECEIVE_ORDER);
  });

  it("stores the offset score: send time minus priority x 10^12 ms; no priority is rsmq's score", async () => {
    const before = await serverNowMs(client);
    const plain = await rsmq.sendMessageAsync({ qname: "q", message: "plain" });
    const high = await rsmq.sendMessageAsync({ qname: "q", message: "high", priority: 7 });
    const after = await serverNowMs(client);
    const plainScore = (await client.zScore(keysOf(ns, "q").messages, plain))!;
    const highScore = (await client.zScore(keysOf(ns, "q").messages, high))!;
    expect(plainScore).to.be.within(before, after);
    expect(highScore + 7e12).to.be.within(before, after);
    expect(highScore + 7e12).to.equal(Math.floor(parseInt(high.slice(0, 10), 36) / 1000));
  });

  for (const [label, priority] of [
    ["-1", -1],
    ["10", 10],
    ["1.5", 1.5],
    ['"3" (a string)', "3"],
    ["NaN", NaN],
  ] as Array<[string, unknown]>) {
    it(`refuses priority ${label} with invalidValue: no command, nothing written`, async () => {
      const keysBefore = (await allKeys(client, `${ns}:*`)).sort();
      const hashBefore = await client.hGetAll(keysOf(ns, "q").hash);
      let error: unknown;
      const commands = await monitor(async () => {
        error = await rsmq.sendMessageAsync({ qname: "q", message: "x", priority: priority as number }).then(
          () => undefined,
          (e: unknown) => e,
        );
      });
      expect(error).to.be.instanceOf(Error);
      expect((error as Error).name).to.equal("invalidValue");
      expect((error as Error).message).to.include("priority");
      expect(commands).to.deep.equal([]);
      expect((await allKeys(client, `${ns}:*`)).sort()).to.deep.equal(keysBefore);
      expect(await client.hGetAll(keysOf(ns, "q").hash)).to.deep.equal(hashBefore);
    });
  }
});
