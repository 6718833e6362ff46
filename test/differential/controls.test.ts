/**
 * rsmq 0.12.4 beside a queue that rsmq-next paused, limited or blocked: the new fields never
 * change what rsmq 0.12.4 reads (its getQueueAttributes of a soft-paused, limited, blocked queue
 * is what it read before), its deleteQueue takes them with the hash, and under a hard pause its
 * consumers receive nothing while its deletes (of messages it holds) still work; after the
 * resume it receives again, each message at its old visibility time.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import type RedisSMQ = require("../../lib/index");
import { asMessage, openNextBesideOld, openOldRsmq } from "../support/old-rsmq";
import type { Rsmq } from "../support/old-rsmq";
import { keysOf, plainClient, uniqueNs } from "../support/server";
import { Cleanup } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "client");

describe("controls beside rsmq 0.12.4", () => {
  let ns: string;
  let old: Rsmq;
  let next: RedisSMQ;
  let client: RedisClientType;
  const cleanup = new Cleanup();

  beforeEach(async () => {
    ns = uniqueNs("ctl");
    old = openOldRsmq(ns);
    next = cleanup.rsmq(openNextBesideOld(ns));
    cleanup.add(() => old.quitAsync());
    client = await plainClient();
    cleanup.add(() => client.quit());
    await old.createQueueAsync({ qname: "q", vt: 30 });
  });
  afterEach(() => cleanup.run());

  it("an old getQueueAttributes of a soft-paused, limited, blocked queue reads as before", async () => {
    await old.sendMessageAsync({ qname: "q", message: "a" });
    await old.sendMessageAsync({ qname: "q", message: "b", delay: 60 });
    const before = await old.getQueueAttributesAsync({ qname: "q" });
    await next.pauseQueueAsync({ qname: "q", until: Date.now() + 600_000 });
    await next.setRateLimitAsync({ qname: "q", limits: [{ max: 5, perMs: 1000, burst: 2 }] });
    await next.rateLimitQueueAsync({ qname: "q", ms: 60_000 });
    expect(await old.getQueueAttributesAsync({ qname: "q" })).to.deep.equal(before);
    // rsmq-next reads the same, plus its own three.
    const attributes = await next.getQueueAttributesAsync({ qname: "q" });
    const { paused, rateLimit, rateLimitedUntil, ...rest } = attributes;
    expect(rest).to.deep.equal({ ...before, hiddenmsgs: rest.hiddenmsgs });
    expect([paused?.hard, rateLimit?.mode, typeof rateLimitedUntil]).to.deep.equal([false, "receive", "number"]);
  });

  it("an old deleteQueue removes the queue with its pause, limit, state and block", async () => {
    await next.pauseQueueAsync({ qname: "q", hard: true });
    await next.setRateLimitAsync({ qname: "q", limits: [{ max: 5, perMs: 1000 }] });
    await client.hSet(keysOf(ns, "q").hash, "rltat", "1");
    await next.rateLimitQueueAsync({ qname: "q", ms: 60_000 });
    expect(await old.deleteQueueAsync({ qname: "q" })).to.equal(1);
    expect(await client.exists(keysOf(ns, "q").hash)).to.equal(0);
    // Created again, it is a plain queue.
    await old.createQueueAsync({ qname: "q" });
    const attributes = await next.getQueueAttributesAsync({ qname: "q" });
    expect(attributes).to.not.have.any.keys("paused", "rateLimit", "rateLimitedUntil");
  });

  it("under a hard pause an old consumer receives nothing and its deletes work; after the resume it receives again", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push(await old.sendMessageAsync({ qname: "q", message: `m${i}` }));
    const held = asMessage(await old.receiveMessageAsync({ qname: "q" }));
    const scores = await client.zRangeWithScores(keysOf(ns, "q").messages, 0, -1);

    await next.pauseQueueAsync({ qname: "q", hard: true });
    expect(await old.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    expect(await old.popMessageAsync({ qname: "q" })).to.deep.equal({});
    expect(await old.deleteMessageAsync({ qname: "q", id: held.id }), "the old consumer settles what it holds").to.equal(1);
    expect(await old.deleteMessageAsync({ qname: "q", id: ids[4] })).to.equal(1);
    expect((await old.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(3);

    expect(await next.resumeQueueAsync({ qname: "q" })).to.equal(1);
    const left = scores.filter(({ value }) => value !== held.id && value !== ids[4]);
    expect(await client.zRangeWithScores(keysOf(ns, "q").messages, 0, -1)).to.deep.equal(left);
    const received = asMessage(await old.receiveMessageAsync({ qname: "q" }));
    expect(left.map(({ value }) => value)).to.include(received.id);
  });
});
