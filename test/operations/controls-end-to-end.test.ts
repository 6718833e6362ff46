/**
 * The control calls with the receive and send paths that obey them (the gate): a pause holds every
 * receive until the resume, a waiting receive pending at the pause gets its message at the
 * resume's wake, a hard pause's sends are shifted with the rest and come back exact, a rate limit
 * set by setRateLimit holds a batch to what it allows, and a block (rateLimitQueue, a Worker's
 * bounce) holds receives and ends by itself.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { rateLimitBounce } from "../../lib/operations/rate-limit-bounce";
import { HARD_PAUSE_OFFSET_MS, SHIFTED_FROM } from "../../lib/operations/queue-fields";
import { asMessage } from "../support/old-rsmq";
import { serverNowMs, subscribersOf } from "../support/inspect";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { Cleanup, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

describe("controls end to end", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let other: RedisSMQ;
  let client: RedisClientType;
  const cleanup = new Cleanup();

  beforeEach(async () => {
    ns = uniqueNs("e2e");
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    other = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    client = await plainClient();
    cleanup.add(() => client.quit());
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => cleanup.run());

  it("a pause holds every receive; sends are accepted; the resume lets them through", async () => {
    await rsmq.pauseQueueAsync({ qname: "q" });
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    expect(await rsmq.receiveMessageOrNextDueAsync({ qname: "q" })).to.deep.equal({ status: "paused" });
    expect((await rsmq.receiveMessagesAsync({ qname: "q", count: 5 })).blocked).to.deep.equal({ reason: "paused", retryMs: null });
    expect(await rsmq.popMessageAsync({ qname: "q" })).to.deep.equal({});
    expect(await rsmq.resumeQueueAsync({ qname: "q" })).to.equal(1);
    expect(asMessage(await rsmq.receiveMessageAsync({ qname: "q" })).id).to.equal(id);
  });

  it("a pause with until ends by itself on the server's clock, telling how long it has left", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    const until = Date.now() + 400;
    await rsmq.pauseQueueAsync({ qname: "q", until });
    const held = await rsmq.receiveMessageOrNextDueAsync({ qname: "q" });
    expect(held.status).to.equal("paused");
    expect((held as { retryMs?: number }).retryMs).to.be.within(1, 400);
    await waitFor(async () => (await serverNowMs(client)) > until, "the until on the server's clock");
    expect(asMessage(await rsmq.receiveMessageAsync({ qname: "q" })).id).to.equal(id);
    expect(await rsmq.getQueueAttributesAsync({ qname: "q" })).to.not.have.property("paused");
  });

  it("a waiting receive pending at the pause takes nothing, and gets its message at the resume (another process's wake)", async () => {
    await rsmq.pauseQueueAsync({ qname: "q" });
    await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    let received: RedisSMQ.QueueMessage | {} | undefined;
    const waiting = other.receiveMessageAsync({ qname: "q", waitMs: 20_000 }).then((message) => (received = message));
    // The waiting receive has looked once (paused) and listens on the wake channel.
    await waitFor(async () => (await subscribersOf(client, keysOf(ns, "q").wakeChannel)) === 1, "the waiting receive listening");
    expect(received, "nothing taken while paused").to.equal(undefined);
    await rsmq.resumeQueueAsync({ qname: "q" });
    await waitFor(() => received !== undefined, "the waiting receive's message", 5_000);
    expect(asMessage(received!).message).to.equal("m");
    await waiting;
  });

  it("a hard pause shifts what is sent meanwhile too; the resume restores all of it exactly", async () => {
    const keys = keysOf(ns, "q");
    const early = await rsmq.sendMessageAsync({ qname: "q", message: "early" });
    await rsmq.pauseQueueAsync({ qname: "q", hard: true });
    const late = await rsmq.sendMessageAsync({ qname: "q", message: "late", delay: 5 });
    const shifted = new Map((await client.zRangeWithScores(keys.messages, 0, -1)).map(({ value, score }) => [value, score]));
    expect(shifted.get(early)).to.be.at.least(SHIFTED_FROM);
    expect(shifted.get(late), "a send during a hard pause is shifted").to.be.at.least(SHIFTED_FROM);
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    await rsmq.resumeQueueAsync({ qname: "q" });
    expect(await client.zScore(keys.messages, late)).to.equal(shifted.get(late)! - HARD_PAUSE_OFFSET_MS);
    expect(asMessage(await rsmq.receiveMessageAsync({ qname: "q" })).id).to.equal(early);
  });

  it("setRateLimit holds a batch to what the limit allows, and says when to retry", async () => {
    for (let i = 0; i < 5; i += 1) await rsmq.sendMessageAsync({ qname: "q", message: `m${i}` });
    await rsmq.setRateLimitAsync({ qname: "q", limits: [{ max: 2, perMs: 60_000, burst: 1 }] });
    const first = await rsmq.receiveMessagesAsync({ qname: "q", count: 5 });
    expect(first.messages).to.have.length(2);
    expect(first.blocked).to.include({ reason: "limited", intervalMs: 30_000 });
    const second = await rsmq.receiveMessageOrNextDueAsync({ qname: "q" });
    expect(second.status).to.equal("limited");
    await rsmq.removeRateLimitAsync({ qname: "q" });
    expect((await rsmq.receiveMessagesAsync({ qname: "q", count: 5 })).messages).to.have.length(3);
  });

  it("rateLimitQueue and a Worker's bounce block receives until the block ends", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    await rsmq.sendMessageAsync({ qname: "q", message: "n" });
    await rsmq.rateLimitQueueAsync({ qname: "q", ms: 60_000 });
    const held = await rsmq.receiveMessagesAsync({ qname: "q", count: 2 });
    expect(held.messages).to.deep.equal([]);
    expect(held.blocked).to.include({ reason: "limited", intervalMs: 0 });
    expect((held.blocked as { retryMs: number }).retryMs).to.be.within(55_000, 60_000);

    await client.hDel(keysOf(ns, "q").hash, "rlblock");
    const taken = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    expect(taken.id).to.equal(id);
    const internals = internalsOf(rsmq);
    expect(await internals.run(() => rateLimitBounce(internals.layout, "q", id, 200))).to.equal(200);
    expect(await rsmq.receiveMessageAsync({ qname: "q" }), "blocked for 200 ms").to.deep.equal({});
    await waitFor(async () => "id" in (await rsmq.receiveMessageAsync({ qname: "q", vt: 0 })), "the block's end", 5_000);
  });
});
