/**
 * The list of calls awaiting a reply that bounds each call (lib/transports/watchdog/link-watchdog.ts): every
 * entry leaves it exactly once, whether its reply or its bound comes first, so it empties again.
 */
import { expect } from "chai";
import { PendingReplies, PendingReply } from "../../../lib/transports/watchdog/pending-replies";
import { runsOn } from "../../support/targets";

runsOn("single");

const entry = (expiresAt: number): PendingReply => new PendingReply(expiresAt, 0, () => undefined);

describe("PendingReplies", () => {
  it("removes entries in any order and is empty again after", () => {
    const list = new PendingReplies();
    const entries = [1, 2, 3, 4, 5].map(entry);
    for (const e of entries) list.add(e);
    expect(list.size).to.equal(5);
    for (const i of [2, 0, 4, 1, 3]) expect(list.delete(entries[i])).to.equal(true);
    expect(list.size).to.equal(0);
    expect(list.takeExpired(Infinity)).to.deep.equal([]);
  });

  it("removes an entry only once: a reply after its bound (or the reverse) finds it gone", () => {
    const list = new PendingReplies();
    const e = entry(10);
    list.add(e);
    expect(list.delete(e)).to.equal(true);
    expect(list.delete(e)).to.equal(false);
    expect(list.size).to.equal(0);
  });

  it("takes the expired entries, in send order, and leaves the others", () => {
    const list = new PendingReplies();
    const [a, b, c, d] = [5, 20, 10, 30].map(entry);
    for (const e of [a, b, c, d]) list.add(e);
    expect(list.takeExpired(10)).to.deep.equal([a, c]);
    expect(list.size).to.equal(2);
    expect(list.delete(a)).to.equal(false);
    expect(list.takeExpired(30)).to.deep.equal([b, d]);
    expect(list.size).to.equal(0);
  });

  it("empties after 100,000 calls that each got their reply", () => {
    const list = new PendingReplies();
    const window: PendingReply[] = [];
    for (let i = 0; i < 100_000; i++) {
      const e = entry(i);
      list.add(e);
      window.push(e);
      // 50 in flight, replies in send order, as on one connection
      if (window.length > 50) list.delete(window.shift()!);
    }
    for (const e of window) list.delete(e);
    expect(list.size).to.equal(0);
  });
});
