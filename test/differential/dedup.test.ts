/**
 * Idempotent sends on a queue shared with rsmq 0.12.4 (the real package), on one server and one
 * namespace (rsmq 0.12.4 cannot use a cluster; test/dedup/ covers the cluster): the dedup keys are
 * invisible to it (its listQueues, getQueueAttributes and receive answer as without them), its
 * producers bypass them, and its deleteQueue leaves them to expire by their TTL.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import type { QueueKeys } from "../../lib/keys";
import { dedupKey } from "../../lib/operations/dedup-id";
import { asMessage, besideOldRsmqOptions, openOldRsmq } from "../support/old-rsmq";
import type { Rsmq } from "../support/old-rsmq";
import { singleServerClient, uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single", "client");

describe("Differential: idempotent sends, rsmq 0.12.4 and rsmq-next together", () => {
  let ns: string;
  let old: Rsmq;
  let next: RedisSMQ;
  let client: RedisClientType;
  const keyOf = (qname: string, dedupId: string): string => dedupKey({ messages: `${ns}:${qname}` } as QueueKeys, dedupId, "");

  beforeEach(async () => {
    ns = uniqueNs();
    old = openOldRsmq(ns);
    next = new RedisSMQ(besideOldRsmqOptions(ns));
    client = await singleServerClient();
  });
  afterEach(async () => {
    await old.quitAsync();
    await next.quitAsync();
    await client.quit();
  });

  it("rsmq 0.12.4 lists, describes and receives as if there were no dedup key", async () => {
    expect(await old.createQueueAsync({ qname: "q" })).to.equal(1);
    const id = await next.sendMessageAsync({ qname: "q", message: "once", dedupId: "k" });
    expect(await next.sendMessageAsync({ qname: "q", message: "once", dedupId: "k" })).to.equal(id);
    expect(await client.exists(keyOf("q", "k"))).to.equal(1);
    expect(await old.listQueuesAsync()).to.deep.equal(["q"]);
    const attributes = await old.getQueueAttributesAsync({ qname: "q" });
    expect(attributes).to.include({ msgs: 1, totalsent: 1 });
    const received = asMessage(await old.receiveMessageAsync({ qname: "q" }));
    expect(received).to.include({ id, message: "once", rc: 1 });
    expect(await old.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
  });

  it("an rsmq 0.12.4 producer bypasses it: its sends are always stored", async () => {
    await next.createQueueAsync({ qname: "q" });
    await next.sendMessageAsync({ qname: "q", message: "same", dedupId: true });
    await old.sendMessageAsync({ qname: "q", message: "same" });
    await old.sendMessageAsync({ qname: "q", message: "same" });
    expect(await client.zCard(`${ns}:q`)).to.equal(3);
  });

  it("rsmq 0.12.4's deleteQueue leaves the dedup key, which expires by its TTL", async () => {
    await next.createQueueAsync({ qname: "q" });
    await next.sendMessageAsync({ qname: "q", message: "m", dedupId: "k", dedupWindowMs: 60_000 });
    expect(await old.deleteQueueAsync({ qname: "q" })).to.equal(1);
    expect(await client.exists([`${ns}:q`, `${ns}:q:Q`])).to.equal(0);
    const ttl = await client.pTTL(keyOf("q", "k"));
    expect(ttl).to.be.within(1, 60_000);
  });
});
