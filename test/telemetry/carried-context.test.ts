/**
 * The trace context a message carries (`<id>:tp` in the queue's hash, lua/sendMessage-2.lua) and
 * the details a receive returns for telemetry (when the message became visible, its context):
 * stored only when given, returned only when asked for, removed with the message by every
 * rsmq-next call that removes one, invisible to rsmq 0.12.4, and swept (bounded) from an empty
 * queue when an rsmq 0.12.4 delete or pop left it behind.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { internalsOf } from "../../lib/internals";
import { popMessageDetailed } from "../../lib/operations/pop-message";
import { receiveMessages } from "../../lib/operations/receive-message";
import { MAX_CARRIER_LENGTH, sendMessage } from "../../lib/operations/send-message";
import { asMessage, openOldRsmq } from "../support/old-rsmq";
import type { Rsmq } from "../support/old-rsmq";
import { connectionOptions, keysOf, plainClient, singleServerOnly, uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";
import { serverNowMs } from "../support/inspect";
import { sentAt } from "../../lib/operations/message-reply";

runsOn("single", "cluster", "client");

const CARRIER = JSON.stringify({ traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" });

describe("telemetry: the trace context a message carries", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let redis: RedisClientType;
  let keys: ReturnType<typeof keysOf>;

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
    redis = await plainClient();
    keys = keysOf(ns, "q");
  });
  afterEach(async () => {
    await rsmq.quitAsync();
    await redis.quit();
  });

  const internals = () => internalsOf(rsmq);
  const send = (carrier?: string, delay?: number) =>
    internals().run(() => sendMessage(internals().layout, "none", { qname: "q", message: "body", delay }, carrier));
  const receive = (count = 1, details = true) => internals().run(() => receiveMessages(internals().layout, { qname: "q" }, count, details));
  const fields = async () => (await redis.hKeys(keys.hash)).sort();

  it("stores the context beside the message only when one is given", async () => {
    const carried = (await send(CARRIER)).id;
    const plain = (await send()).id;
    expect(await redis.hGet(keys.hash, `${carried}:tp`)).to.equal(CARRIER);
    expect(await redis.hExists(keys.hash, `${plain}:tp`)).to.equal(false);
    expect(await redis.hGet(keys.hash, carried)).to.equal("body");
  });

  it("does not store a context longer than the bound", async () => {
    const { id } = await send("x".repeat(MAX_CARRIER_LENGTH + 1));
    expect(await redis.hExists(keys.hash, `${id}:tp`)).to.equal(false);
    expect(await redis.hGet(keys.hash, id)).to.equal("body");
  });

  it("a receive with details returns each message's context, visible-at score and the server's time", async () => {
    const first = (await send(CARRIER)).id;
    const second = (await send()).id;
    const scores = [Number(await redis.zScore(keys.messages, first)), Number(await redis.zScore(keys.messages, second))];
    const before = Date.now();
    const batch = await receive(5);
    expect(batch.messages.map((m) => m.id)).to.deep.equal([first, second]);
    expect(batch.details).to.deep.equal([
      { visibleAt: scores[0], carrier: CARRIER },
      { visibleAt: scores[1], carrier: undefined },
    ]);
    expect(batch.now).to.be.a("number").and.to.be.at.least(scores[1]);
    // The server clock and this one are the same machine's.
    expect(Math.abs(batch.now! - before)).to.be.below(5_000);
    expect(batch.messages[0]).to.deep.include({ message: "body", rc: 1 });
  });

  it("a single receive with details, and one without, return the same message shape", async () => {
    await send(CARRIER);
    await send(CARRIER);
    const withDetails = await receive(1, true);
    const without = await receive(1, false);
    expect(withDetails.details).to.have.length(1);
    expect(without.details).to.equal(undefined);
    expect(without.now).to.equal(undefined);
    expect(Object.keys(without.messages[0]).sort()).to.deep.equal(Object.keys(withDetails.messages[0]).sort());
  });

  it("a delayed message's visible-at is its due time, not its send time", async () => {
    const { id } = await send(CARRIER, 0);
    // Due 2 ms after its send (no message is visible before it was sent: a score before that is a
    // priority's offset, docs/priorities.md); received once the server's clock is past it.
    const dueAt = Math.floor(sentAt(id)) + 2;
    await redis.zAdd(keys.messages, { score: dueAt, value: id });
    while ((await serverNowMs(redis)) <= dueAt);
    const batch = await receive();
    expect(batch.details![0].visibleAt).to.equal(dueAt);
  });

  it("popMessageDetailed returns the context and visible-at, and removes the context with the message", async () => {
    const { id } = await send(CARRIER);
    const score = Number(await redis.zScore(keys.messages, id));
    const popped = await internals().run(() => popMessageDetailed(internals().layout, { qname: "q" }));
    expect(asMessage(popped.message).id).to.equal(id);
    expect(popped.detail).to.deep.equal({ visibleAt: score, carrier: CARRIER });
    expect(popped.now).to.be.at.least(score);
    expect(await fields()).to.not.include(`${id}:tp`);
    const none = await internals().run(() => popMessageDetailed(internals().layout, { qname: "q" }));
    expect(none).to.deep.equal({ message: {}, detail: undefined, now: undefined });
  });

  it("deleteMessage, deleteMessages and popMessage remove the context with the message", async () => {
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push((await send(CARRIER)).id);
    await rsmq.deleteMessageAsync({ qname: "q", id: ids[0] });
    await rsmq.deleteMessagesAsync({ qname: "q", ids: [ids[1], ids[2]] });
    await rsmq.popMessageAsync({ qname: "q" });
    expect((await fields()).filter((field) => field.endsWith(":tp"))).to.deep.equal([]);
  });

  describe("beside rsmq 0.12.4", () => {
    let old: Rsmq;
    beforeEach(function () {
      singleServerOnly(this, "rsmq 0.12.4 talks to one server");
      old = openOldRsmq(ns);
    });
    afterEach(async () => {
      await old?.quitAsync();
    });

    it("an rsmq 0.12.4 receive gets the same message, whether it carries a context or not", async () => {
      const carried = (await send(CARRIER)).id;
      const plain = (await send()).id;
      const got = [asMessage(await old.receiveMessageAsync({ qname: "q" })), asMessage(await old.receiveMessageAsync({ qname: "q" }))];
      expect(got.map((m) => m.id)).to.deep.equal([carried, plain]);
      const shape = (m: RedisSMQ.QueueMessage) => ({ message: m.message, rc: m.rc, keys: Object.keys(m).sort() });
      expect(shape(got[0])).to.deep.equal(shape(got[1]));
    });

    it("what an rsmq 0.12.4 delete leaves (<id>:tp, <id>:dl) a receive on the empty queue sweeps", async () => {
      const ids = [(await send(CARRIER)).id, (await send(CARRIER)).id];
      await redis.hSet(keys.hash, `${ids[1]}:dl`, '{"reason":"exhausted"}');
      await old.receiveMessageAsync({ qname: "q" });
      for (const id of ids) await old.deleteMessageAsync({ qname: "q", id });
      expect((await fields()).filter((field) => field.includes(":"))).to.deep.equal(
        [`${ids[0]}:tp`, `${ids[1]}:dl`, `${ids[1]}:tp`].sort(),
      );
      const settings = (await fields()).filter((field) => !field.includes(":"));

      expect((await receive()).messages).to.deep.equal([]);
      expect(await fields()).to.deep.equal(settings);
      // The queue still works for both clients.
      const id = await old.sendMessageAsync({ qname: "q", message: "after" });
      expect(asMessage(await rsmq.receiveMessageAsync({ qname: "q" })).id).to.equal(id);
    });

    it("an rsmq 0.12.4 pop leaves the context, and the sweep takes it", async () => {
      const { id } = await send(CARRIER);
      expect(asMessage(await old.popMessageAsync({ qname: "q" })).id).to.equal(id);
      expect(await fields()).to.include(`${id}:tp`);
      await rsmq.receiveMessageAsync({ qname: "q" });
      expect(await fields()).to.not.include(`${id}:tp`);
    });
  });

  it("a queue that still holds a message is not swept: only an empty one is", async () => {
    const kept = (await send(CARRIER)).id;
    await redis.hSet(keys.hash, "0000000000orphanorphanorphanorph:tp", CARRIER);
    await redis.zAdd(keys.messages, { score: Date.now() + 3_600_000, value: kept });
    expect((await receive()).messages).to.deep.equal([]);
    expect(await fields()).to.include("0000000000orphanorphanorphanorph:tp");
    expect(await fields()).to.include(`${kept}:tp`);
  });

  it("the sweep is bounded: each receive removes a chunk, and the chunks clear every orphan", async () => {
    const orphans = 1_000;
    const planted: Record<string, string> = {};
    for (let i = 0; i < orphans; i++) planted[`${String(i).padStart(10, "0")}abcdefghijklmnopqrstuv:tp`] = CARRIER;
    await redis.hSet(keys.hash, planted);
    const left = async () => (await fields()).filter((field) => field.endsWith(":tp")).length;

    await receive();
    const afterOne = await left();
    expect(afterOne, "one receive removes some, not all").to.be.above(0).and.below(orphans);
    // HSCAN pages may run over the 200 fields a sweep looks at by a page (COUNT 100).
    expect(orphans - afterOne).to.be.at.most(400);
    let receives = 1;
    while ((await left()) > 0 && receives < 50) {
      await receive();
      receives += 1;
    }
    expect(await left()).to.equal(0);
    expect(receives).to.be.at.most(10);
  });
});
