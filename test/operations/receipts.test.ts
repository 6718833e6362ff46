/**
 * Receipts: a delete, visibility change, hide or bounce given the `rc` of the delivery its caller
 * received acts only while that is still the message's receive count, so a holder whose vt lapsed
 * and whose message was received again cannot act on the second holder's delivery; every batch
 * form per id; bad receipts refused before any round trip, nothing written.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { hideMessage } from "../../lib/operations/hide-message";
import { rateLimitBounce } from "../../lib/operations/rate-limit-bounce";
import { asMessage, rejectionOf } from "../support/old-rsmq";
import { exactState } from "../support/state";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { monitor } from "../support/wire";
import { Cleanup, serverTimePassed } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

type QueueMessage = RedisSMQ.QueueMessage;

describe("receipts", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  const cleanup = new Cleanup();
  const score = async (id: string): Promise<number | null> => client.zScore(keysOf(ns, "q").messages, id);

  /** A message received twice: the first holder's receipt is 1, the current one 2. */
  async function receivedTwice(): Promise<QueueMessage> {
    await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    asMessage(await rsmq.receiveMessageAsync({ qname: "q", vt: 0 }));
    const again = asMessage(await rsmq.receiveMessageAsync({ qname: "q", vt: 30 }));
    expect(again.rc).to.equal(2);
    return again;
  }

  beforeEach(async () => {
    ns = uniqueNs("rcpt");
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    client = await plainClient();
    cleanup.add(() => client.quit());
    await rsmq.createQueueAsync({ qname: "q", vt: 30 });
  });
  afterEach(() => cleanup.run());

  it("a holder whose vt lapsed cannot delete the message received again (0, it stays); the current holder can", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    const first = asMessage(await rsmq.receiveMessageAsync({ qname: "q", vt: 1 }));
    await serverTimePassed(client, 0, Number(await score(id)));
    const second = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    expect([first.rc, second.rc]).to.deep.equal([1, 2]);
    expect(await rsmq.deleteMessageAsync({ qname: "q", id, rc: first.rc })).to.equal(0);
    expect(await client.hGet(keysOf(ns, "q").hash, id)).to.equal("m");
    expect(await rsmq.deleteMessageAsync({ qname: "q", id, rc: second.rc })).to.equal(1);
    expect(await score(id)).to.equal(null);
  });

  it("changeMessageVisibility with a stale receipt answers 0 and leaves the score; with the current one it changes it", async () => {
    const message = await receivedTwice();
    const before = await score(message.id);
    expect(await rsmq.changeMessageVisibilityAsync({ qname: "q", id: message.id, vt: 100, rc: 1 })).to.equal(0);
    expect(await score(message.id)).to.equal(before);
    expect(await rsmq.changeMessageVisibilityAsync({ qname: "q", id: message.id, vt: 100, rc: 2 })).to.equal(1);
    expect(await score(message.id)).to.be.greaterThan(before!);
  });

  it("hideMessage answers 0 and rateLimitBounce -1 for a superseded receipt, writing nothing", async () => {
    const message = await receivedTwice();
    const internals = internalsOf(rsmq);
    const before = await exactState(client, ns);
    expect(await internals.run(() => hideMessage(internals.layout, "q", message.id, 5000, 1))).to.equal(0);
    expect(await internals.run(() => rateLimitBounce(internals.layout, "q", message.id, 1000, 1))).to.equal(-1);
    expect(await exactState(client, ns)).to.deep.equal(before);
    expect(await internals.run(() => hideMessage(internals.layout, "q", message.id, 5000, 2))).to.equal(1);
  });

  it("batch forms check each id's receipt: deleteMessages, changeMessagesVisibility, deleteAndReceiveMessages", async () => {
    const stale = await receivedTwice();
    const current = await receivedTwice();
    const before = await score(stale.id);
    expect(await rsmq.changeMessagesVisibilityAsync({ qname: "q", ids: [stale.id, current.id], vt: 100, rcs: [1, 2] })).to.deep.equal([
      0, 1,
    ]);
    expect(await score(stale.id)).to.equal(before);
    expect(await rsmq.deleteMessagesAsync({ qname: "q", ids: [stale.id, current.id], rcs: [1, 2] })).to.deep.equal([0, 1]);
    expect(await score(stale.id)).to.equal(before);
    const settled = await rsmq.deleteAndReceiveMessagesAsync({ qname: "q", ids: [stale.id], rcs: [1], count: 1 });
    expect(settled.deleted).to.deep.equal([0]);
    const single = await rsmq.deleteAndReceiveAsync({ qname: "q", id: stale.id, rc: 2 });
    expect(single.deleted).to.equal(1);
    expect(await score(stale.id)).to.equal(null);
  });

  it("without receipts the calls act whoever holds the message, as rsmq 0.12.4's", async () => {
    const message = await receivedTwice();
    expect(await rsmq.changeMessageVisibilityAsync({ qname: "q", id: message.id, vt: 5 })).to.equal(1);
    expect(await rsmq.deleteMessageAsync({ qname: "q", id: message.id })).to.equal(1);
  });

  const id = "lo5xk2y8qmAbCdEfGhIjKlMnOpQrStUv";
  const invalid: Array<[string, (r: RedisSMQ) => Promise<unknown>]> = [
    ["rc 0", (r) => r.deleteMessageAsync({ qname: "q", id, rc: 0 })],
    ["rc -1", (r) => r.deleteMessageAsync({ qname: "q", id, rc: -1 })],
    ["rc 1.5", (r) => r.changeMessageVisibilityAsync({ qname: "q", id, vt: 1, rc: 1.5 })],
    ['rc "x"', (r) => r.deleteMessageAsync({ qname: "q", id, rc: "x" as never })],
    ["rc NaN", (r) => r.deleteAndReceiveAsync({ qname: "q", id, rc: NaN })],
    ["rcs shorter than ids", (r) => r.deleteMessagesAsync({ qname: "q", ids: [id, id], rcs: [1] })],
    ["rcs longer than ids", (r) => r.changeMessagesVisibilityAsync({ qname: "q", ids: [id], vt: 1, rcs: [1, 2] })],
    ["rcs for no ids", (r) => r.deleteMessagesAsync({ qname: "q", ids: [], rcs: [1] })],
    ["rcs with a 0", (r) => r.deleteAndReceiveMessagesAsync({ qname: "q", ids: [id], rcs: [0], count: 1 })],
    ["rcs not a list", (r) => r.deleteMessagesAsync({ qname: "q", ids: [id], rcs: 1 as never })],
  ];
  for (const [label, call] of invalid) {
    it(`${label}: invalidValue, no command, nothing written`, async () => {
      await receivedTwice();
      const before = await exactState(client, ns);
      let error: Error | undefined;
      const commands = await monitor(async () => {
        error = await rejectionOf(call(rsmq));
      });
      expect(error?.name).to.equal("invalidValue");
      expect(commands).to.deep.equal([]);
      expect(await exactState(client, ns)).to.deep.equal(before);
    });
  }
});
