/**
 * `where tenant=a` over 10,000 messages of five tenants: exactly that tenant's messages (as a set,
 * none twice), in at most ceil(10,000 / BROWSE_LOOKS) + 1 calls, each call looking at no more than
 * BROWSE_LOOKS members, and no script call over the documented bound: the server's SLOWLOG, with
 * its threshold set to that bound, records none (the server is otherwise idle while it runs).
 */
import { expect } from "chai";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { connectionOptions, uniqueNs } from "../support/server";
import { queueServer } from "../support/worker";
import { runsOn } from "../support/targets";
import { BROWSE_LOOKS } from "../../lib/operations/browse-messages";

runsOn("single", "cluster");

/** The documented bound on one page's script call (docs/api.md, "Browsing messages"), in microseconds. */
const SCRIPT_BOUND_US = 50_000;
const TOTAL = 10_000;
const TENANTS = ["a", "b", "c", "d", "e"];

describe("browseMessagesAsync over 10,000 messages", function () {
  this.timeout(120_000);
  let ns: string;
  let rsmq: RedisSMQ;
  let node: RedisClientType;
  const sentTo = new Map<string, string[]>();

  before(async () => {
    ns = uniqueNs();
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
    for (const tenant of TENANTS) sentTo.set(tenant, []);
    // Sends in flights of 500 (node-redis pipelines them): the tenants interleaved.
    for (let start = 0; start < TOTAL; start += 500) {
      const flight = Array.from({ length: 500 }, (_, i) => {
        const tenant = TENANTS[(start + i) % TENANTS.length];
        return rsmq.sendMessageAsync({ qname: "q", message: `m${start + i}`, attributes: { tenant, n: start + i } }).then((id) => {
          sentTo.get(tenant)?.push(id);
        });
      });
      await Promise.all(flight);
    }
    const { host, port } = await queueServer(ns, "q");
    node = createClient({ url: `redis://${host}:${port}` }) as RedisClientType;
    node.on("error", () => undefined);
    await node.connect();
  });
  after(async () => {
    await node.sendCommand(["CONFIG", "SET", "slowlog-log-slower-than", "10000"]);
    await node.quit();
    await rsmq.quitAsync();
  });

  it("returns exactly tenant a's messages in a bounded number of calls, none over the bound", async () => {
    await node.sendCommand(["CONFIG", "SET", "slowlog-log-slower-than", String(SCRIPT_BOUND_US)]);
    await node.sendCommand(["SLOWLOG", "RESET"]);
    const seen: string[] = [];
    let cursor: string | null = null;
    let calls = 0;
    do {
      const page = await rsmq.browseMessagesAsync({ qname: "q", where: { tenant: "a" }, limit: 1000, cursor });
      calls += 1;
      seen.push(...page.messages.map(({ id }) => id));
      for (const message of page.messages) expect(message.attributes?.tenant).to.equal("a");
      cursor = page.cursor;
    } while (cursor !== null && calls < 100);
    const slow: unknown = await node.sendCommand(["SLOWLOG", "GET", "100"]);
    expect(new Set(seen).size).to.equal(seen.length);
    expect([...seen].sort()).to.deep.equal([...(sentTo.get("a") ?? [])].sort());
    expect(calls).to.be.at.most(Math.ceil(TOTAL / BROWSE_LOOKS) + 1);
    // No call (script or command) took longer than the bound: the server logged none.
    expect(slow).to.deep.equal([]);
  });

  it("looks at no more than BROWSE_LOOKS members per call: empty pages with a cursor when nothing matches", async () => {
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await rsmq.browseMessagesAsync({ qname: "q", where: { tenant: "nobody" }, limit: 1, cursor });
      sizes.push(page.messages.length);
      cursor = page.cursor;
    } while (cursor !== null && sizes.length < 100);
    // A call that finds nothing stops after BROWSE_LOOKS members: one call per thousand, the last one null.
    expect(sizes).to.deep.equal(Array.from({ length: TOTAL / BROWSE_LOOKS }, () => 0));
  });

  it("ends a call at BROWSE_LOOKS members or at its limit, whichever comes first", async () => {
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const page = await rsmq.browseMessagesAsync({ qname: "q", where: { tenant: "b" }, limit: 1000, cursor });
      pages.push(page.messages.map(({ id }) => id));
      cursor = page.cursor;
    } while (cursor !== null && pages.length < 100);
    // 2,000 matches, fewer than the limit in every thousand looked at: one call per thousand.
    expect(pages.length).to.equal(TOTAL / BROWSE_LOOKS);
    expect(pages.flat().sort()).to.deep.equal([...(sentTo.get("b") ?? [])].sort());
    // A limit below the matches of a thousand ends the page there, with a cursor that goes on after it.
    const first = await rsmq.browseMessagesAsync({ qname: "q", where: { tenant: "b" }, limit: 50 });
    expect(first.messages.map(({ id }) => id)).to.deep.equal(pages.flat().slice(0, 50));
    const second = await rsmq.browseMessagesAsync({ qname: "q", where: { tenant: "b" }, limit: 50, cursor: first.cursor });
    expect(second.messages.map(({ id }) => id)).to.deep.equal(pages.flat().slice(50, 100));
  });
});
