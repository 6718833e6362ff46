/**
 * The rate limit at the receive: GCRA per limit, checked and spent inside the receive scripts
 * (lua/shared/queue-gate.lua). The limit is written straight into `:Q` as setRateLimit writes it
 * (`ratelimit` = `r;<max>/<perMs>/<burst>,...`). Times are the server's: each message's `fr` (its
 * first receive, on the server clock) and TIME read around a call.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { internalsOf } from "../../lib/internals";
import { nextDue } from "../../lib/operations/next-due";
import { connectionOptions, plainClient, uniqueNs } from "../support/server";
import { serverNowUs } from "../support/inspect";
import { runsOn } from "../support/targets";
import { mostInWindow, pause, queueField, setQueueFields } from "./gate-fields";

runsOn("single", "cluster", "client");

type Message = RedisSMQ.QueueMessage;

describe("rate limit at receive (GCRA)", function () {
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

  async function sendMany(count: number): Promise<string[]> {
    const results = await rsmq.sendMessagesAsync({
      qname: "q",
      messages: Array.from({ length: count }, (_, i) => ({ message: `m${i}` })),
    });
    return results.map((result) => (result as { id: string }).id);
  }

  /** Receives `total` messages with `consumers` callers hammering batch receives of `batch`: every message received. */
  async function hammer(total: number, consumers: number, batch: number): Promise<Message[]> {
    const received: Message[] = [];
    let limitedReplies = 0;
    const deadline = Date.now() + 20_000;
    await Promise.all(
      Array.from({ length: consumers }, async () => {
        while (received.length < total && Date.now() < deadline) {
          const { messages, blocked } = await rsmq.receiveMessagesAsync({ qname: "q", count: batch });
          received.push(...messages);
          if (blocked) limitedReplies++;
          if (messages.length === 0) await pause(1);
        }
      }),
    );
    expect(limitedReplies).to.be.greaterThan(0);
    return received;
  }

  it("never lets more than max through in any 1000 ms window (10/1000 ms, two consumers)", async () => {
    await setQueueFields(client, ns, "q", { ratelimit: "r;10/1000/0" });
    await sendMany(30);
    const received = await hammer(30, 2, 5);
    expect(received).to.have.length(30);
    expect(new Set(received.map((m) => m.id)).size).to.equal(30);
    expect(
      mostInWindow(
        received.map((m) => m.fr),
        1000,
      ),
    ).to.be.at.most(10);
    // The whole takes what the limit requires (30 at 10/s: 2.9 s from first to last), plus one window at most.
    const frs = received.map((m) => m.fr).sort((a, b) => a - b);
    expect(frs[29] - frs[0]).to.be.within(2900, 2900 + 1000);
  });

  it("spends nothing on empty receives: 100 of them, then 10 sends are all taken in the first window", async () => {
    await setQueueFields(client, ns, "q", { ratelimit: "r;10/1000/0" });
    for (let i = 0; i < 100; i++) {
      expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    }
    expect(await queueField(client, ns, "q", "rltat")).to.equal(null);
    await sendMany(10);
    const received = await hammer(10, 1, 10);
    expect(received).to.have.length(10);
    const frs = received.map((m) => m.fr).sort((a, b) => a - b);
    expect(frs[9] - frs[0]).to.be.below(1000);
  });

  it("tells a limited receive when to retry, exact on the server clock", async () => {
    await setQueueFields(client, ns, "q", { ratelimit: "r;10/1000/0" });
    await sendMany(2);
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.have.property("id");
    const tatUs = Number(await queueField(client, ns, "q", "rltat"));
    const beforeUs = await serverNowUs(client);
    const result = await rsmq.receiveMessageOrNextDueAsync({ qname: "q" });
    const afterUs = await serverNowUs(client);
    if (result.status !== "limited") throw new Error(`expected limited, got ${JSON.stringify(result)}`);
    // tau is 0: the next token is at tat; the script read TIME between the two reads here.
    expect(result.retryMs).to.be.within(Math.ceil((tatUs - afterUs) / 1000), Math.ceil((tatUs - beforeUs) / 1000));
    expect(result.retryMs).to.be.within(1, 100);
    const batch = await rsmq.receiveMessagesAsync({ qname: "q", count: 2 });
    expect(batch.messages).to.deep.equal([]);
    expect(batch.blocked).to.include({ reason: "limited", intervalMs: 100 });
    // Nothing spent by the refused receives.
    expect(Number(await queueField(client, ns, "q", "rltat"))).to.equal(tatUs);
  });

  it("holds two limits at once (3/1000 ms and 5/3000 ms with a burst of 2)", async () => {
    await setQueueFields(client, ns, "q", { ratelimit: "r;3/1000/0,5/3000/2" });
    await sendMany(12);
    const received = await hammer(12, 2, 4);
    const frs = received.map((m) => m.fr);
    expect(received).to.have.length(12);
    expect(mostInWindow(frs, 1000)).to.be.at.most(3);
    expect(mostInWindow(frs, 3000)).to.be.at.most(7);
    expect((await queueField(client, ns, "q", "rltat"))?.split(",")).to.have.length(2);
  });

  it("lets a burst through at once after a quiet spell, then paces; a batch takes all it may", async () => {
    await setQueueFields(client, ns, "q", { ratelimit: "r;10/1000/5" });
    await sendMany(20);
    const first = await rsmq.receiveMessagesAsync({ qname: "q", count: 20 });
    expect(first.messages).to.have.length(6);
    // Cut short by the limit with more due: the batch says so beside its messages.
    expect(first.blocked).to.include({ reason: "limited", intervalMs: 100 });
    expect((first.blocked as { retryMs: number }).retryMs).to.be.within(1, 100);
    expect(first.nextDueMs).to.equal((first.blocked as { retryMs: number }).retryMs);
    const rest = await (async () => {
      const all: Message[] = [...first.messages];
      while (all.length < 20) {
        const batch = await rsmq.receiveMessagesAsync({ qname: "q", count: 20 });
        all.push(...batch.messages);
        if (batch.blocked?.reason === "limited") await pause(batch.blocked.retryMs);
      }
      return all;
    })();
    expect(
      mostInWindow(
        rest.map((m) => m.fr),
        1000,
      ),
    ).to.be.at.most(15);
  });

  it("holds receives during a block (rlblock) and tells its end; no message due: the normal reply", async () => {
    expect(await rsmq.receiveMessageOrNextDueAsync({ qname: "q" })).to.deep.equal({ status: "empty" });
    const untilMs = Math.floor((await serverNowUs(client)) / 1000) + 400;
    await setQueueFields(client, ns, "q", { rlblock: String(untilMs) });
    expect(await rsmq.receiveMessageOrNextDueAsync({ qname: "q" })).to.deep.equal({ status: "empty" });
    await sendMany(1);
    const held = await rsmq.receiveMessagesAsync({ qname: "q", count: 1 });
    expect(held.messages).to.deep.equal([]);
    expect(held.blocked).to.include({ reason: "limited", intervalMs: 0 });
    expect((held.blocked as { retryMs: number }).retryMs).to.be.within(1, 400);
    await pause((held.blocked as { retryMs: number }).retryMs);
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.have.property("id");
  });

  it("makes a waiting receive held back by the limit take its message at the retry time, not at the end of its wait", async () => {
    await setQueueFields(client, ns, "q", { ratelimit: "r;1/600/0" });
    await sendMany(2);
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.have.property("id");
    const tatMs = Math.floor(Number(await queueField(client, ns, "q", "rltat")) / 1000);
    const got = (await rsmq.receiveMessageAsync({ qname: "q", waitMs: 20_000 })) as Message;
    expect(got).to.have.property("id");
    // Taken once the token was there (its fr is the server's time then), within a few polls of it.
    expect(got.fr).to.be.within(tatMs, tatMs + 500);
  });

  it("holds popMessage back, and deleteAndReceive's receive part after its delete", async () => {
    await setQueueFields(client, ns, "q", { ratelimit: "r;1/60000/0" });
    await sendMany(3);
    const taken = await rsmq.receiveMessageAsync({ qname: "q" });
    expect(taken).to.have.property("id");
    expect(await rsmq.popMessageAsync({ qname: "q" })).to.deep.equal({});
    // The Worker's read-only look says so too (a message is due, no token is left).
    const internals = internalsOf(rsmq);
    expect(await internals.run(() => nextDue(internals.layout, "q"))).to.include({ reason: "limited", intervalMs: 60000 });
    const result = await rsmq.deleteAndReceiveAsync({ qname: "q", id: (taken as Message).id });
    expect(result.deleted).to.equal(1);
    expect(result.message).to.deep.equal({});
    expect(result.blocked).to.include({ reason: "limited", intervalMs: 60000 });
    const batch = await rsmq.deleteAndReceiveMessagesAsync({ qname: "q", ids: [], count: 5 });
    expect(batch.messages).to.deep.equal([]);
    expect(batch.blocked?.reason).to.equal("limited");
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(2);
  });
});
