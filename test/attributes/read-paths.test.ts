/**
 * Message attributes through every read: ten attributes of every type (strings with non-ASCII
 * text and a lone surrogate, integers, floats, negatives, booleans, bytes with 0x00 and 0xff, the
 * longest string and the most bytes) come back unchanged, with their types (bytes as a Buffer),
 * from receiveMessage, receiveMessages, receiveMessageOrNextDue, a waiting receive, popMessage,
 * peekMessage, deleteAndReceive (one and a batch), peekDeadLetters and a Worker's handler, with
 * telemetry and without; a message without attributes keeps rsmq 0.12.4's shape on each of them.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import type { QueueMessage } from "../../lib/types";
import { everyKind, expectSameAttributes as expectSame, openAttributesQueue, RSMQ_SHAPE } from "../support/attribute-values";
import { asMessage } from "../support/old-rsmq";
import { connectionOptions, keysOf } from "../support/server";
import { Cleanup, waitFor } from "../support/worker";
import { otelSdk } from "../support/otel";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;

describe("message attributes on every read path", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let redis: RedisClientType;
  const cleanup = new Cleanup();
  const sent = everyKind();

  beforeEach(async () => {
    ({ ns, rsmq, redis } = await openAttributesQueue(cleanup));
  });
  afterEach(() => cleanup.run());

  /** Sends one message with every kind of attribute, then one without any. */
  async function sendPair(instance = rsmq): Promise<[string, string]> {
    const withAttributes = await instance.sendMessageAsync({ qname: "q", message: "with", attributes: sent });
    const without = await instance.sendMessageAsync({ qname: "q", message: "without" });
    return [withAttributes, without];
  }

  /** The message with attributes has them, unchanged; the one without has rsmq's shape exactly. */
  function expectPair(messages: QueueMessage[], [withId, withoutId]: [string, string]): void {
    expect(messages.map((m) => m.id)).to.deep.equal([withId, withoutId]);
    expect(messages[0].message).to.equal("with");
    expectSame(messages[0].attributes, sent);
    expect(Object.keys(messages[1]).sort()).to.deep.equal(RSMQ_SHAPE);
  }

  it("receiveMessage", async () => {
    const ids = await sendPair();
    const first = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    const second = asMessage(await rsmq.receiveMessageAsync({ qname: "q", vt: 10 }));
    expectPair([first, second], ids);
    expect(Object.keys(first).sort()).to.deep.equal([...RSMQ_SHAPE, "attributes"].sort());
  });

  it("receiveMessages (a batch of singles sent)", async () => {
    const ids = await sendPair();
    const { messages } = await rsmq.receiveMessagesAsync({ qname: "q", count: 5 });
    expectPair(messages, ids);
  });

  it("receiveMessageOrNextDue", async () => {
    const ids = await sendPair();
    const results = [await rsmq.receiveMessageOrNextDueAsync({ qname: "q" }), await rsmq.receiveMessageOrNextDueAsync({ qname: "q" })];
    expectPair(
      results.map((result) => (result.status === "received" ? result.message : asMessage({}))),
      ids,
    );
  });

  it("a waiting receive (waitMs): the message is delayed, so the first look finds nothing due", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "with", attributes: sent, delay: 1 });
    const message = asMessage(await rsmq.receiveMessageAsync({ qname: "q", waitMs: 20_000 }));
    expect(message.id).to.equal(id);
    expectSame(message.attributes, sent);
  });

  it("popMessage", async () => {
    const ids = await sendPair();
    expectPair([asMessage(await rsmq.popMessageAsync({ qname: "q" })), asMessage(await rsmq.popMessageAsync({ qname: "q" }))], ids);
  });

  it("peekMessage and peekMessages, and they leave the messages as they were", async () => {
    const [withId, withoutId] = await sendPair();
    const peeked = await rsmq.peekMessageAsync({ qname: "q", id: withId });
    if (!("id" in peeked)) throw new Error("peekMessage found nothing");
    expectSame(peeked.attributes, sent);
    const plain = await rsmq.peekMessageAsync({ qname: "q", id: withoutId });
    expect("attributes" in plain).to.equal(false);
    const both = await rsmq.peekMessagesAsync({ qname: "q" });
    expect(both.map((m) => m.id)).to.deep.equal([withId, withoutId]);
    expectSame(both[0].attributes, sent);
    expect(both[1]).to.deep.equal(plain);
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).totalrecv).to.equal(0);
  });

  it("deleteAndReceive and deleteAndReceiveMessages", async () => {
    const first = await rsmq.sendMessageAsync({ qname: "q", message: "first" });
    const ids = await sendPair();
    const one = await rsmq.deleteAndReceiveAsync({ qname: "q", id: first });
    expect(one.deleted).to.equal(1);
    const many = await rsmq.deleteAndReceiveMessagesAsync({ qname: "q", ids: [ids[0]], count: 5 });
    expect(many.deleted).to.deep.equal([1]);
    expectPair([asMessage(one.message), ...many.messages], ids);
  });

  it("every receive of an instance that records telemetry (the details read), and its pop", async () => {
    const sdk = otelSdk();
    const traced = cleanup.rsmq(
      new RedisSMQ({ ...connectionOptions(ns), telemetry: { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider } }),
    );
    let ids = await sendPair(traced);
    expectPair(
      [asMessage(await traced.receiveMessageAsync({ qname: "q" })), asMessage(await traced.receiveMessageAsync({ qname: "q" }))],
      ids,
    );
    ids = await sendPair(traced);
    expectPair((await traced.receiveMessagesAsync({ qname: "q", count: 5 })).messages, ids);
    ids = await sendPair(traced);
    expectPair([asMessage(await traced.popMessageAsync({ qname: "q" })), asMessage(await traced.popMessageAsync({ qname: "q" }))], ids);
    expect((await sdk.metrics()).has("rsmq.message.wait.duration")).to.equal(true);
    await sdk.shutdown();
  });

  for (const telemetry of [false, true]) {
    it(`a Worker's handler gets message.attributes${telemetry ? " (its instance records telemetry)" : ""}`, async () => {
      const sdk = otelSdk();
      const consumer = telemetry
        ? cleanup.rsmq(new RedisSMQ({ ...connectionOptions(ns), telemetry: { tracerProvider: sdk.tracerProvider } }))
        : rsmq;
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) ids.push(...(await sendPair()));
      const seen: QueueMessage[] = [];
      const worker = cleanup.worker(new Worker(consumer, { qname: "q", concurrency: 1, handler: (message) => void seen.push(message) }));
      worker.start();
      await waitFor(() => seen.length === 6, "the six messages handled");
      await worker.stop();
      expect(seen.map((m) => m.id)).to.deep.equal(ids);
      for (let i = 0; i < 6; i += 2) expectPair([seen[i], seen[i + 1]], [ids[i], ids[i + 1]]);
      // Each deleted with its attributes (through the Worker's deletes and deleteAndReceives).
      expect((await redis.hKeys(keysOf(ns, "q").hash)).filter((field) => field.endsWith(":at"))).to.deep.equal([]);
      await sdk.shutdown();
    });
  }

  it("peekDeadLetters returns the attributes a dead letter holds", async () => {
    const [withId, withoutId] = await sendPair();
    const peeked = await rsmq.peekDeadLettersAsync({ qname: "q" });
    expect(peeked.map((m) => m.id)).to.deep.equal([withId, withoutId]);
    expectSame(peeked[0].attributes, sent);
    expect("attributes" in peeked[1]).to.equal(false);
  });

  it("a schedule's fields beside the attributes: the public reads give the attributes only, the Worker both", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "both", attributes: { tenant: "acme", n: 1 } });
    const hash = keysOf(ns, "q").hash;
    const stored = JSON.parse((await redis.hGet(hash, `${id}:at`))!) as Record<string, unknown>;
    await redis.hSet(hash, `${id}:at`, JSON.stringify({ ...stored, schedule: "nightly", slot: 5000 }));
    const peeked = await rsmq.peekMessageAsync({ qname: "q", id });
    expect("id" in peeked && peeked.attributes).to.deep.equal({ tenant: "acme", n: 1 });
    const received = asMessage(await rsmq.receiveMessageAsync({ qname: "q", vt: 0 }));
    expect(received.attributes).to.deep.equal({ tenant: "acme", n: 1 });
    expect("schedule" in received).to.equal(false);
    const seen: QueueMessage[] = [];
    const worker = cleanup.worker(new Worker(rsmq, { qname: "q", handler: (message) => void seen.push(message) }));
    worker.start();
    await waitFor(() => seen.length === 1, "the message handled");
    await worker.stop();
    expect(seen[0].attributes).to.deep.equal({ tenant: "acme", n: 1 });
    expect(seen[0].schedule).to.deep.equal({ name: "nightly", slot: 5000 });
  });
});
