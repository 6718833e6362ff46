/**
 * A queue with a retention shared by rsmq 0.12.4 (the real package) and rsmq-next, on one server
 * and one namespace (rsmq 0.12.4 cannot use a cluster; test/retention/ covers the cluster): rsmq
 * 0.12.4's create, send, receive, delete and getQueueAttributes keep working and answer as they
 * would without the retention fields, while rsmq-next never returns an expired message, including
 * one that rsmq 0.12.4 sent or left behind.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { asMessage, besideOldRsmqOptions, openOldRsmq } from "../support/old-rsmq";
import type { Rsmq } from "../support/old-rsmq";
import { singleServerClient, uniqueNs } from "../support/server";
import { fieldsOf, idSentAt } from "../support/retention";
import { serverNowMs } from "../support/inspect";
import { runsOn } from "../support/targets";

runsOn("single", "client");

describe("Differential: a queue with a retention, rsmq 0.12.4 and rsmq-next together", () => {
  let ns: string;
  let old: Rsmq;
  let next: RedisSMQ;
  let client: RedisClientType;

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

  it("rsmq 0.12.4 works on it as before; rsmq-next never returns an expired message", async () => {
    expect(await old.createQueueAsync({ qname: "q", vt: 30 })).to.equal(1);
    const hash = `${ns}:q:Q`;
    await client.hSet(hash, { retention: "60", expireto: "q-expired" });
    const attributes = await old.getQueueAttributesAsync({ qname: "q" });
    expect([attributes.vt, attributes.delay, attributes.maxsize, attributes.msgs]).to.deep.equal([30, 0, 65536, 0]);

    // rsmq 0.12.4 sends and receives a fresh message as ever.
    const fresh = await old.sendMessageAsync({ qname: "q", message: "fresh" });
    const received = asMessage(await old.receiveMessageAsync({ qname: "q", vt: 0 }));
    expect(received.id).to.equal(fresh);

    // An old one, laid out as rsmq 0.12.4 lays it out (sent two minutes ago), due before the fresh one.
    const now = await serverNowMs(client);
    const stale = idSentAt(now - 120_000);
    await client.hSet(hash, stale, "stale");
    await client.zAdd(`${ns}:q`, { score: now - 120_000, value: stale });

    // rsmq 0.12.4 ignores the retention: it would deliver it (peeked here by its own receive, then hidden 0 s).
    expect(asMessage(await old.receiveMessageAsync({ qname: "q", vt: 0 })).id).to.equal(stale);
    // rsmq-next never does: it moves it and returns the live one.
    expect((await next.receiveMessagesAsync({ qname: "q", count: 5 })).messages.map((m) => m.id)).to.deep.equal([fresh]);
    expect(await fieldsOf(client, ns, "q", [stale])).to.deep.equal([]);
    expect((await next.peekMessagesAsync({ qname: "q-expired" })).map((m) => [m.id, m.deadLetter?.reason])).to.deep.equal([
      [stale, "expired"],
    ]);
    expect(await client.hGet(hash, "totalexpired")).to.equal("1");

    // rsmq 0.12.4 deletes what rsmq-next handed out, and reads the counters it knows.
    expect(await old.deleteMessageAsync({ qname: "q", id: fresh })).to.equal(1);
    const after = await old.getQueueAttributesAsync({ qname: "q" });
    expect([after.msgs, after.totalsent, after.totalrecv]).to.deep.equal([0, 1, 3]);
    expect(await old.listQueuesAsync()).to.include.members(["q", "q-expired"]);
    // And the pop of an expired message it sent itself, by rsmq-next: nothing live, nothing returned.
    await client.hDel(hash, "expireto");
    const ancient = idSentAt(now - 3_600_000);
    await client.hSet(hash, ancient, "ancient");
    await client.zAdd(`${ns}:q`, { score: now - 1000, value: ancient });
    expect(await next.popMessageAsync({ qname: "q" })).to.deep.equal({});
    expect(await old.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    expect(await client.hGet(hash, "totalexpired")).to.equal("2");
  });
});
