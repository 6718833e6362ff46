/**
 * setConcurrency and removeConcurrency, and how receives, deletes and visibility changes keep to
 * the limit through the leases key (lua/shared/leases.lua): what each call answers, the fields
 * and keys it leaves, and the `~free:` wake a freed slot publishes only when a receive was held.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { onQueueActivity } from "../../lib/wakes/wake-hub";
import { asMessage, rejectionOf } from "../support/old-rsmq";
import { serverNowMs } from "../support/inspect";
import { exactState } from "../support/state";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { monitor } from "../support/wire";
import { Cleanup, serverTimePassed, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

describe("concurrency limits", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  const cleanup = new Cleanup();
  const keys = (): ReturnType<typeof keysOf> => keysOf(ns, "q");
  const field = async (name: string): Promise<string | undefined> => (await client.hGet(keys().hash, name)) ?? undefined;
  const leased = async (): Promise<string[]> => client.zRange(keys().leases, 0, -1);
  const send = async (count: number): Promise<string[]> => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(await rsmq.sendMessageAsync({ qname: "q", message: `m${i}` }));
    return ids;
  };

  /** The `~free:` wakes published on the queue's channel, and those this process's hub heard. */
  async function listen(): Promise<{ heard: string[]; inProcess: Array<string | undefined> }> {
    const heard: string[] = [];
    const inProcess: Array<string | undefined> = [];
    const isFree = (text: unknown): boolean => String(text).startsWith("~free:");
    const unsubscribe = await internalsOf(rsmq)
      .realtimeWakes()
      .subscribe(keys().wakeChannel, (text) => isFree(text) && heard.push(String(text)));
    cleanup.add(unsubscribe);
    const stop = onQueueActivity(ns, "q", (text) => isFree(text) && inProcess.push(text));
    cleanup.add(async () => stop());
    return { heard, inProcess };
  }

  beforeEach(async () => {
    ns = uniqueNs("conc");
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    client = await plainClient();
    cleanup.add(() => client.quit());
    await rsmq.createQueueAsync({ qname: "q", vt: 30 });
  });
  afterEach(() => cleanup.run());

  it("limit 3: a batch of 5 takes 3 (blocked maxed), a 4th receive takes nothing and says maxed until about vt", async () => {
    expect(await rsmq.setConcurrencyAsync({ qname: "q", max: 3 })).to.equal(1);
    expect(await field("concurrency")).to.equal("3");
    await send(5);
    const batch = await rsmq.receiveMessagesAsync({ qname: "q", count: 5 });
    expect(batch.messages).to.have.length(3);
    expect(batch.blocked?.reason).to.equal("maxed");
    expect(batch.blocked?.retryMs).to.be.within(29_000, 30_000);
    expect(await field("maxed")).to.equal("1");
    expect((await leased()).sort()).to.deep.equal(batch.messages.map(({ id }) => id).sort());

    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    const next = await rsmq.receiveMessageOrNextDueAsync({ qname: "q" });
    expect(next.status).to.equal("maxed");
    expect((next as { retryMs: number }).retryMs).to.be.within(29_000, 30_000);
    const more = await rsmq.receiveMessagesAsync({ qname: "q", count: 2 });
    expect(more.messages).to.deep.equal([]);
    expect(more.blocked?.reason).to.equal("maxed");
    expect(await rsmq.popMessageAsync({ qname: "q" }), "a pop does not take past the limit").to.deep.equal({});
    const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
    expect([attributes.concurrency, attributes.leased, attributes.msgs]).to.deep.equal([3, 3, 5]);
  });

  it("a delete frees a slot: the next receive takes one; deleteAndReceive settles and takes in one call", async () => {
    await rsmq.setConcurrencyAsync({ qname: "q", max: 2 });
    await send(5);
    const [first, second] = (await rsmq.receiveMessagesAsync({ qname: "q", count: 2 })).messages;
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    expect(await rsmq.deleteMessageAsync({ qname: "q", id: first.id })).to.equal(1);
    const third = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    expect((await leased()).sort()).to.deep.equal([second.id, third.id].sort());
    const settled = await rsmq.deleteAndReceiveAsync({ qname: "q", id: second.id });
    expect(settled.deleted).to.equal(1);
    const fourth = asMessage(settled.message);
    expect((await leased()).sort()).to.deep.equal([third.id, fourth.id].sort());
    const held = await rsmq.deleteAndReceiveMessagesAsync({ qname: "q", ids: [], count: 1 });
    expect(held.blocked?.reason).to.equal("maxed");
  });

  it("changeMessageVisibility to 0 frees the slot; a longer vt moves the lease", async () => {
    await rsmq.setConcurrencyAsync({ qname: "q", max: 1 });
    await send(2);
    const first = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    const before = await client.zScore(keys().leases, first.id);
    expect(await rsmq.changeMessageVisibilityAsync({ qname: "q", id: first.id, vt: 60 })).to.equal(1);
    const moved = await client.zScore(keys().leases, first.id);
    expect(moved! - before!).to.be.within(29_000, 31_000);
    expect(await client.pTTL(keys().leases)).to.be.within(59_000, 61_000);
    expect(await rsmq.changeMessageVisibilityAsync({ qname: "q", id: first.id, vt: 0 })).to.equal(1);
    expect(await leased()).to.deep.equal([]);
    const taken = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    expect([first.id, taken.id]).to.include(taken.id);
    expect(await leased()).to.deep.equal([taken.id]);
  });

  it("a lapsed vt frees the slot by itself: the next receive counts it out and removes the stale lease", async () => {
    await rsmq.setConcurrencyAsync({ qname: "q", max: 1 });
    const [id, second] = await send(2);
    const first = asMessage(await rsmq.receiveMessageAsync({ qname: "q", vt: 1 }));
    expect(first.id).to.equal(id);
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    await serverTimePassed(client, 1000, Number(await client.zScore(keys().leases, id)) - 1000);
    const again = await rsmq.receiveMessagesAsync({ qname: "q", count: 2 });
    // The lapsed message is due again, behind the one never received; the limit still holds to one.
    expect(again.messages.map((m) => m.id)).to.deep.equal([second]);
    expect(again.blocked?.reason).to.equal("maxed");
    expect(await leased(), "the stale lease is gone").to.deep.equal([second]);
  });

  it("maxed set, a delete publishes ~free: once and clears it; a delete while not maxed publishes nothing", async () => {
    const { heard, inProcess } = await listen();
    await rsmq.setConcurrencyAsync({ qname: "q", max: 2 });
    await waitFor(() => heard.length === 1, "setConcurrency's wake");
    await send(3);
    const [a, b] = (await rsmq.receiveMessagesAsync({ qname: "q", count: 2 })).messages;
    expect(await field("maxed"), "not held: not maxed").to.equal(undefined);
    expect(await rsmq.deleteMessageAsync({ qname: "q", id: a.id })).to.equal(1);
    const c = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    await send(1);
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    expect(await field("maxed")).to.equal("1");
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    expect(await rsmq.deleteMessageAsync({ qname: "q", id: b.id })).to.equal(1);
    expect(await field("maxed")).to.equal(undefined);
    expect(await rsmq.deleteMessageAsync({ qname: "q", id: c.id })).to.equal(1);
    // A last setConcurrency marks the end: the channel keeps order, so a wake of the last delete would come before it.
    await rsmq.setConcurrencyAsync({ qname: "q", max: 2 });
    await waitFor(() => heard.length >= 3, "the freeing delete's wake and the marker");
    expect(heard).to.have.length(3);
    for (const text of heard) expect(text).to.match(/^~free:\d+$/);
    expect(inProcess).to.deep.equal(heard);
  });

  it("deleteAndReceive that takes the slot it freed announces nothing; the delete that leaves one free does", async () => {
    const { heard } = await listen();
    await rsmq.setConcurrencyAsync({ qname: "q", max: 1 });
    await send(3);
    const first = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    const settled = await rsmq.deleteAndReceiveAsync({ qname: "q", id: first.id });
    const second = asMessage(settled.message);
    expect(await field("maxed"), "still held: the next freeing delete tells").to.equal("1");
    expect(await rsmq.deleteMessageAsync({ qname: "q", id: second.id })).to.equal(1);
    expect(await field("maxed")).to.equal(undefined);
    await rsmq.setConcurrencyAsync({ qname: "q", max: 1 });
    await waitFor(() => heard.length >= 3, "the delete's wake and the marker");
    expect(heard).to.have.length(3);
  });

  it("the leases key's TTL reaches the latest lease end plus 1 s and no further", async () => {
    await rsmq.setConcurrencyAsync({ qname: "q", max: 5 });
    await send(3);
    await rsmq.receiveMessageAsync({ qname: "q", vt: 10 });
    await rsmq.receiveMessageAsync({ qname: "q", vt: 40 });
    await rsmq.receiveMessageAsync({ qname: "q", vt: 20 });
    const now = await serverNowMs(client);
    const ends = (await client.zRangeWithScores(keys().leases, 0, -1)).map(({ score }) => score);
    const latest = Math.max(...ends);
    const ttl = await client.pTTL(keys().leases);
    expect(now + ttl).to.be.at.most(latest + 1000);
    expect(now + ttl).to.be.at.least(latest + 1000 - 200);
  });

  it("a queue without a limit never touches the leases key on receive", async () => {
    await send(1);
    const commands = await monitor(() => rsmq.receiveMessageAsync({ qname: "q" }));
    expect(commands.filter((command) => command.fromScript).map((command) => command.name)).to.not.include.members([
      "zcount",
      "zadd",
      "pttl",
      "pexpire",
    ]);
    expect(commands.filter((command) => command.name === "zadd")).to.have.length(1);
    expect(await client.exists(keys().leases)).to.equal(0);
  });

  it("deleteQueue removes the leases key", async () => {
    await rsmq.setConcurrencyAsync({ qname: "q", max: 2 });
    await send(1);
    await rsmq.receiveMessageAsync({ qname: "q" });
    expect(await client.exists(keys().leases)).to.equal(1);
    await rsmq.deleteQueueAsync({ qname: "q" });
    expect(await client.exists(keys().leases)).to.equal(0);
  });

  it("purge keeps the limit, drops maxed and the leases", async () => {
    await rsmq.setConcurrencyAsync({ qname: "q", max: 1 });
    await send(2);
    await rsmq.receiveMessageAsync({ qname: "q" });
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    expect(await field("maxed")).to.equal("1");
    expect(await rsmq.purgeQueueAsync({ qname: "q" })).to.equal(2);
    expect([await field("concurrency"), await field("maxed"), await client.exists(keys().leases)]).to.deep.equal(["1", undefined, 0]);
    const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
    expect([attributes.concurrency, attributes.leased]).to.deep.equal([1, 0]);
  });

  it("removeConcurrency lifts the limit and publishes ~free:; 0 and no wake without one", async () => {
    const { heard } = await listen();
    await rsmq.setConcurrencyAsync({ qname: "q", max: 1 });
    await send(3);
    await rsmq.receiveMessageAsync({ qname: "q" });
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    expect(await rsmq.removeConcurrencyAsync({ qname: "q" })).to.equal(1);
    expect([await field("concurrency"), await field("maxed"), await client.exists(keys().leases)]).to.deep.equal([undefined, undefined, 0]);
    asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    expect(await rsmq.removeConcurrencyAsync({ qname: "q" })).to.equal(0);
    await waitFor(() => heard.length === 2, "setConcurrency's and removeConcurrency's wakes");
    for (const text of heard) expect(text).to.match(/^~free:\d+$/);
    const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
    expect(attributes).to.not.have.property("concurrency");
    expect(attributes).to.not.have.property("leased");
  });

  it("hideMessage moves a lease, or ends it with release; rateLimitBounce ends it; neither publishes", async () => {
    const { hideMessage } = await import("../../lib/operations/hide-message");
    const { rateLimitBounce } = await import("../../lib/operations/rate-limit-bounce");
    const internals = internalsOf(rsmq);
    await rsmq.setConcurrencyAsync({ qname: "q", max: 2 });
    await send(2);
    const [a, b] = (await rsmq.receiveMessagesAsync({ qname: "q", count: 2 })).messages;
    expect(await internals.run(() => hideMessage(internals.layout, "q", a.id, 90_000, a.rc))).to.equal(1);
    const now = await serverNowMs(client);
    expect(Number(await client.zScore(keys().leases, a.id)) - now).to.be.within(88_000, 90_001);
    expect(await internals.run(() => hideMessage(internals.layout, "q", a.id, 5000, a.rc, true))).to.equal(1);
    expect(await leased()).to.deep.equal([b.id]);
    expect(await internals.run(() => rateLimitBounce(internals.layout, "q", b.id, undefined, b.rc))).to.be.within(900, 1000);
    expect(await leased()).to.deep.equal([]);
  });

  it("the doctor knows the limit's fields: a queue held at its limit has nothing out of place", async () => {
    await rsmq.setConcurrencyAsync({ qname: "q", max: 1 });
    await send(2);
    await rsmq.receiveMessageAsync({ qname: "q" });
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    expect(await field("maxed")).to.equal("1");
    const report = await rsmq.doctorAsync({ qnames: ["q"] });
    expect(report.findings).to.deep.equal([]);
  });

  it("rejects queueNotFound for a missing queue, writing nothing", async () => {
    for (const call of [
      () => rsmq.setConcurrencyAsync({ qname: "missing", max: 2 }),
      () => rsmq.removeConcurrencyAsync({ qname: "missing" }),
    ]) {
      expect((await rejectionOf(call())).name).to.equal("queueNotFound");
    }
    expect(await client.exists(keysOf(ns, "missing").hash)).to.equal(0);
  });

  const invalid: Array<[string, (r: RedisSMQ) => Promise<unknown>, string]> = [
    ["max 0", (r) => r.setConcurrencyAsync({ qname: "q", max: 0 }), "invalidValue"],
    ["max 10001", (r) => r.setConcurrencyAsync({ qname: "q", max: 10_001 }), "invalidValue"],
    ["max 1.5", (r) => r.setConcurrencyAsync({ qname: "q", max: 1.5 }), "invalidValue"],
    ["max as text", (r) => r.setConcurrencyAsync({ qname: "q", max: "3" as never }), "invalidValue"],
    ["max missing", (r) => r.setConcurrencyAsync({ qname: "q" } as never), "invalidValue"],
    ["no qname", (r) => r.setConcurrencyAsync({ max: 3 } as never), "missingParameter"],
    ["remove with a bad qname", (r) => r.removeConcurrencyAsync({ qname: "bad name" }), "invalidFormat"],
  ];
  for (const [label, call, name] of invalid) {
    it(`setConcurrency/removeConcurrency, ${label}: ${name}, no command, nothing written`, async () => {
      const before = await exactState(client, ns);
      let error: Error | undefined;
      const commands = await monitor(async () => {
        error = await rejectionOf(call(rsmq));
      });
      expect(error?.name).to.equal(name);
      expect(commands).to.deep.equal([]);
      expect(await exactState(client, ns)).to.deep.equal(before);
    });
  }
});
