/**
 * Priorities in a mixed fleet (docs/priorities.md): rsmq-next sends with priorities, the real rsmq
 * 0.12.4 consumes. rsmq 0.12.4 receives the lowest due score first, so it takes the higher levels
 * first and, within a level, by send time; its `sent` is the id's send time, as rsmq-next's;
 * its getQueueAttributes counts a priority message as visible (not hidden) and a delayed one as
 * hidden. What rsmq 0.12.4 sends is priority 0.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { asMessage, besideOldRsmqOptions, openOldRsmq } from "../support/old-rsmq";
import type { Rsmq } from "../support/old-rsmq";
import { uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single", "client");

const sentOf = (id: string): number => parseInt(id.slice(0, 10), 36) / 1000;

describe("Differential: rsmq-next's priorities, consumed by rsmq 0.12.4", () => {
  let old: Rsmq;
  let next: RedisSMQ;

  beforeEach(async () => {
    const ns = uniqueNs("prio");
    old = openOldRsmq(ns);
    next = new RedisSMQ(besideOldRsmqOptions(ns));
    await next.createQueueAsync({ qname: "q" });
  });
  afterEach(async () => {
    await old.quitAsync();
    await next.quitAsync();
  });

  it("rsmq 0.12.4 receives higher levels first, by send time within a level, with the right `sent`", async () => {
    const sends: Array<[string, number]> = [
      ["a0", 0],
      ["b3", 3],
      ["c9", 9],
      ["d3", 3],
      ["e0", 0],
      ["f9", 9],
    ];
    const ids = new Map<string, string>();
    for (const [message, priority] of sends) ids.set(message, await next.sendMessageAsync({ qname: "q", message, priority }));
    // An rsmq 0.12.4 producer sends at level 0: after the level-0 messages sent before it.
    ids.set("g-old", await old.sendMessageAsync({ qname: "q", message: "g-old" }));
    const got: string[] = [];
    for (let i = 0; i < ids.size; i += 1) {
      const message = asMessage(await old.receiveMessageAsync({ qname: "q", vt: 60 }));
      expect(message.id).to.equal(ids.get(message.message));
      expect(message.sent).to.equal(sentOf(message.id));
      expect(message.rc).to.equal(1);
      got.push(message.message);
    }
    expect(got).to.deep.equal(["c9", "f9", "b3", "d3", "a0", "e0", "g-old"]);
    expect(await old.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
  });

  it("rsmq 0.12.4's popMessage takes them in the same order", async () => {
    await next.sendMessageAsync({ qname: "q", message: "low", priority: 1 });
    await next.sendMessageAsync({ qname: "q", message: "high", priority: 8 });
    expect(asMessage(await old.popMessageAsync({ qname: "q" })).message).to.equal("high");
    expect(asMessage(await old.popMessageAsync({ qname: "q" })).message).to.equal("low");
  });

  it("rsmq 0.12.4's getQueueAttributes: a priority message is visible, a delayed one hidden, as without priorities", async () => {
    await next.sendMessageAsync({ qname: "q", message: "high", priority: 9 });
    // (No level-0 message sent now: rsmq 0.12.4 counts from the start of the current second, so
    // one would count hidden to it for up to a second, priorities or not: documented difference 4.)
    await next.sendMessageAsync({ qname: "q", message: "high too", priority: 2 });
    await next.sendMessageAsync({ qname: "q", message: "later", priority: 9, delay: 30 });
    const attributes = await old.getQueueAttributesAsync({ qname: "q" });
    expect([attributes.msgs, attributes.hiddenmsgs, attributes.totalsent]).to.deep.equal([3, 1, 3]);
    const mine = await next.getQueueAttributesAsync({ qname: "q" });
    expect([mine.msgs, mine.hiddenmsgs]).to.deep.equal([3, 1]);
    // Received by rsmq 0.12.4 (hidden for its vt), the priority message counts as hidden.
    expect(asMessage(await old.receiveMessageAsync({ qname: "q", vt: 60 })).message).to.equal("high");
    expect((await old.getQueueAttributesAsync({ qname: "q" })).hiddenmsgs).to.equal(2);
  });
});
