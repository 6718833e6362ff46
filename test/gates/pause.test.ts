/**
 * A paused queue at every receive path: single, batch, waiting, pop, deleteAndReceive and the
 * Worker's look (nextDue) take nothing and write nothing while `paused` is set (soft and hard),
 * and work again after. The pause is written straight into `:Q` as pauseQueue writes it
 * (`paused` = `<sinceMs>:<untilMs or empty>:<kind>`); the resume is its HDEL and the `~resume:`
 * wake on the queue's wake channel.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { internalsOf } from "../../lib/internals";
import { nextDue } from "../../lib/operations/next-due";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { commandStatsDuring } from "../support/wire";
import { loadPollScripts } from "../support/worker";
import { serverNowMs, subscribersOf } from "../support/inspect";
import { exactState } from "../support/state";
import { runsOn } from "../support/targets";
import { deleteQueueFields, pause, setQueueFields, waitFor } from "./gate-fields";

runsOn("single", "cluster", "client");

type Message = RedisSMQ.QueueMessage;

describe("pause at every receive path", function () {
  this.timeout(30_000);
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
    client = await plainClient();
  });
  afterEach(async () => {
    await rsmq.quitAsync();
    await client.quit();
  });

  const look = (): Promise<unknown> => internalsOf(rsmq).run(() => nextDue(internalsOf(rsmq).layout, "q"));

  for (const kind of ["s", "h"]) {
    it(`takes nothing on any path while paused (kind ${kind}), writes nothing, and works after`, async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push(await rsmq.sendMessageAsync({ qname: "q", message: `m${i}` }));
      const taken = (await rsmq.receiveMessageAsync({ qname: "q", vt: 0 })) as Message;
      await setQueueFields(client, ns, "q", { paused: `${await serverNowMs(client)}::${kind}` });
      const before = await exactState(client, ns);

      expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
      expect(await rsmq.receiveMessageOrNextDueAsync({ qname: "q" })).to.deep.equal({ status: "paused" });
      expect(await rsmq.receiveMessagesAsync({ qname: "q", count: 3 })).to.deep.equal({
        messages: [],
        nextDueMs: null,
        blocked: { reason: "paused", retryMs: null },
      });
      expect(await rsmq.receiveMessageAsync({ qname: "q", waitMs: 50 })).to.deep.equal({});
      expect(await rsmq.popMessageAsync({ qname: "q" })).to.deep.equal({});
      expect(await look()).to.deep.equal({ reason: "paused", retryMs: null });
      expect(await exactState(client, ns)).to.deep.equal(before);

      // Deletes still work; the receive part is held back.
      const settled = await rsmq.deleteAndReceiveAsync({ qname: "q", id: taken.id });
      expect(settled).to.deep.equal({ deleted: 1, message: {}, blocked: { reason: "paused", retryMs: null } });

      await deleteQueueFields(client, ns, "q", "paused");
      expect(await look()).to.equal(0);
      expect(await rsmq.receiveMessagesAsync({ qname: "q", count: 5 }))
        .to.have.property("messages")
        .with.length(2);
    });
  }

  it("makes a waiting receive held back by a pause ignore the wakes of sends: its looks are exactly its usual ones", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "loads the send script" });
    await loadPollScripts(ns, "q");
    await rsmq.pauseQueueAsync({ qname: "q" });
    const sender = new RedisSMQ(connectionOptions(ns));
    try {
      const stats = await commandStatsDuring(async () => {
        const waiting = rsmq.receiveMessageAsync({ qname: "q", waitMs: 1500 });
        const { wakeChannel } = keysOf(ns, "q");
        await waitFor("the waiting call's subscription", async () => (await subscribersOf(client, wakeChannel)) > 0);
        for (let i = 0; i < 3; i++) {
          await rsmq.sendMessageAsync({ qname: "q", message: `in process ${i}` });
          await sender.sendMessageAsync({ qname: "q", message: `from another instance ${i}` });
          await pause(50);
        }
        expect(await waiting).to.deep.equal({});
      });
      // 6 sends; the call's first look, its look once subscribed, and its final look: none for a wake.
      expect(stats.evalsha).to.equal(6 + 3);
    } finally {
      await sender.quitAsync();
    }
  });

  it("reads as not paused while a hard pause's restore runs (kind r)", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    await setQueueFields(client, ns, "q", { paused: `${await serverNowMs(client)}::r` });
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.have.property("id");
  });

  it("resumes by itself at `until`, and tells the time left meanwhile", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    const now = await serverNowMs(client);
    await setQueueFields(client, ns, "q", { paused: `${now}:${now + 400}:s` });
    const held = await rsmq.receiveMessageOrNextDueAsync({ qname: "q" });
    if (held.status !== "paused") throw new Error(`expected paused, got ${JSON.stringify(held)}`);
    expect(held.retryMs).to.be.within(1, 400);
    const batch = await rsmq.receiveMessagesAsync({ qname: "q", count: 2 });
    expect(batch.blocked?.reason).to.equal("paused");
    expect(batch.nextDueMs).to.be.within(1, 400);
    let got: Message | {} = {};
    await waitFor("the pause's end", async () => {
      got = await rsmq.receiveMessageAsync({ qname: "q" });
      return "id" in got;
    });
    expect(await serverNowMs(client)).to.be.at.least(now + 400);
  });

  it("gives a waiting receive pending at pause time the message sent during the pause, at the resume", async () => {
    await rsmq.pauseQueueAsync({ qname: "q" });
    const waiting = rsmq.receiveMessageAsync({ qname: "q", waitMs: 60_000 });
    let settled = false;
    void waiting.then(() => (settled = true));
    const { wakeChannel } = keysOf(ns, "q");
    await waitFor("the waiting call's subscription", async () => (await subscribersOf(client, wakeChannel)) > 0);
    const sender = new RedisSMQ(connectionOptions(ns));
    try {
      const id = await sender.sendMessageAsync({ qname: "q", message: "during the pause" });
      // The send's wakes reach the call, which ignores them while paused: no message taken.
      await pause(200);
      expect(settled).to.equal(false);
      expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).totalrecv).to.equal(0);
      const resumedAt = Date.now();
      // From another instance: its in-process wake does not reach this one, only the channel's.
      expect(await sender.resumeQueueAsync({ qname: "q" })).to.equal(1);
      const got = (await waiting) as Message;
      expect(got.id).to.equal(id);
      // At once (the wake), not at the end of the 60 s wait.
      expect(Date.now() - resumedAt).to.be.below(5_000);
    } finally {
      await sender.quitAsync();
    }
  });
});
