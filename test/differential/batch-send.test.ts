/**
 * sendMessages beside rsmq 0.12.4: a batch rsmq-next sends is what rsmq 0.12.4 consumers expect.
 * They receive its messages in entry order with their bodies intact, see the batch's server time
 * as each message's `sent`, and count what was stored (not the duplicates) in totalsent.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib");
import { asMessage, besideOldRsmqOptions, openOldRsmq } from "../support/old-rsmq";
import type { Rsmq } from "../support/old-rsmq";
import { uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single", "client");

describe("differential: sendMessages read by rsmq 0.12.4", () => {
  let ns: string;
  let next: RedisSMQ;
  let old: Rsmq;

  beforeEach(async () => {
    ns = uniqueNs("batch");
    next = new RedisSMQ(besideOldRsmqOptions(ns));
    old = openOldRsmq(ns);
    await old.createQueueAsync({ qname: "q" });
  });
  afterEach(async () => {
    await next.quitAsync();
    await old.quitAsync();
  });

  it("has an rsmq 0.12.4 consumer receive a batch in order, bodies intact, counted in totalsent", async () => {
    const bodies = [
      "plain",
      "",
      "ünïcødé ✓ 𝄞",
      '{"json":[1,2,3]}',
      "line\nbreak\ttab",
      "x".repeat(5000),
      ...Array.from({ length: 44 }, (_, i) => `m${i}`),
    ];
    const results = await next.sendMessagesAsync({
      qname: "q",
      messages: [...bodies.map((message) => ({ message })), { message: "again", dedupId: true }, { message: "again", dedupId: true }],
    });
    expect(results.slice(-1)[0]).to.deep.equal({ id: results.slice(-2)[0].id, duplicate: true });
    const expected = [...bodies, "again"];
    const received = [];
    for (let i = 0; i < expected.length; i += 1) received.push(asMessage(await old.receiveMessageAsync({ qname: "q" })));
    expect(await old.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    expect(received.map((m) => m.message)).to.deep.equal(expected);
    expect(received.map((m) => m.id)).to.deep.equal(results.slice(0, -1).map((r) => r.id));
    // rsmq 0.12.4 reads `sent` from the id: one server time for the whole batch.
    expect(new Set(received.map((m) => m.sent)).size).to.equal(1);
    expect(received.every((m) => m.rc === 1)).to.equal(true);
    const attributes = await old.getQueueAttributesAsync({ qname: "q" });
    expect(attributes.totalsent).to.equal(expected.length);
    expect(attributes.totalrecv).to.equal(expected.length);
  });

  it("interleaves with rsmq 0.12.4's own sends by time", async () => {
    const before = await old.sendMessageAsync({ qname: "q", message: "old first" });
    await next.sendMessagesAsync({ qname: "q", messages: [{ message: "batch a" }, { message: "batch b" }] });
    const after = await old.sendMessageAsync({ qname: "q", message: "old last" });
    const received = [];
    for (let i = 0; i < 4; i += 1) received.push(asMessage(await old.receiveMessageAsync({ qname: "q" })));
    expect(received.map((m) => m.message)).to.deep.equal(["old first", "batch a", "batch b", "old last"]);
    expect([received[0].id, received[3].id]).to.deep.equal([before, after]);
  });
});
