/**
 * browseMessagesAsync, as users call it: pages in receive order with the keyset cursor, `where`
 * by attribute (type and value), `state`, `limit`, the end cursor null, every attribute type
 * returned, a cursor that holds while other messages are received and sent between pages, nothing
 * written, and bad input refused before any round trip. The 10,000-message filter with its call
 * count and per-call bound is in bounded-scan.test.ts.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { rejectionOf } from "../support/old-rsmq";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { clientCommands, monitor } from "../support/wire";
import { runsOn } from "../support/targets";
import type { BrowseMessagesOptions, BrowsedQueueMessage } from "../../lib/types";

runsOn("single", "cluster", "client");

describe("browseMessagesAsync", () => {
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

  /** Every page from the start, with the number of calls it took. */
  async function browseAll(
    options: Omit<BrowseMessagesOptions, "qname" | "cursor">,
  ): Promise<{ messages: BrowsedQueueMessage[]; calls: number }> {
    const messages: BrowsedQueueMessage[] = [];
    let cursor: string | null = null;
    let calls = 0;
    do {
      const page = await rsmq.browseMessagesAsync({ qname: "q", ...options, cursor });
      calls += 1;
      messages.push(...page.messages);
      cursor = page.cursor;
    } while (cursor !== null);
    return { messages, calls };
  }

  it("lists every message in receive order with its state, and a null cursor at the end", async () => {
    const a = await rsmq.sendMessageAsync({ qname: "q", message: "a", attributes: { tenant: "t1" } });
    const b = await rsmq.sendMessageAsync({ qname: "q", message: "b" });
    const later = await rsmq.sendMessageAsync({ qname: "q", message: "later", delay: 100 });
    const high = await rsmq.sendMessageAsync({ qname: "q", message: "high", priority: 9 });
    const received = (await rsmq.receiveMessageAsync({ qname: "q", vt: 100 })) as { id: string };
    expect(received.id).to.equal(high);
    const page = await rsmq.browseMessagesAsync({ qname: "q" });
    expect(page.cursor).to.equal(null);
    expect(page.messages.map(({ id, message, state }) => [id, message, state])).to.deep.equal([
      [a, "a", "visible"],
      [b, "b", "visible"],
      // Hidden ones by due time: the delayed one (100 s) and the in-flight one (vt 100 s) in send order.
      [later, "later", "delayed"],
      [high, "high", "inFlight"],
    ]);
    const [first, second, , inFlight] = page.messages;
    expect(first.attributes).to.deep.equal({ tenant: "t1" });
    expect(second).to.not.have.property("attributes");
    expect([first.receiveCount, first.firstReceived]).to.deep.equal([0, null]);
    expect(inFlight.receiveCount).to.equal(1);
    expect(inFlight.firstReceived).to.be.a("number");
    expect(inFlight.dueAt).to.be.greaterThan(Date.now() + 50_000);
    // Nothing was received by the look: the counters are the same.
    const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
    expect([attributes.totalrecv, attributes.hiddenmsgs, attributes.msgs]).to.deep.equal([1, 2, 4]);
  });

  it("keeps only the messages whose attributes equal every value of where, by type and value", async () => {
    const bytes = Buffer.from([0, 1, 255]);
    const sent = {
      one: await rsmq.sendMessageAsync({ qname: "q", message: "1", attributes: { tenant: "a", attempt: 2, urgent: true, key: bytes } }),
      two: await rsmq.sendMessageAsync({ qname: "q", message: "2", attributes: { tenant: "a", attempt: "2", urgent: false } }),
      three: await rsmq.sendMessageAsync({ qname: "q", message: "3", attributes: { tenant: "b", attempt: 2 } }),
      four: await rsmq.sendMessageAsync({ qname: "q", message: "4" }),
      five: await rsmq.sendMessageAsync({ qname: "q", message: "5", attributes: { tenant: "a", key: Buffer.from([0, 1, 254]) } }),
    };
    const ids = async (where: BrowseMessagesOptions["where"]) => (await browseAll({ where })).messages.map(({ id }) => id);
    expect(await ids({ tenant: "a" })).to.deep.equal([sent.one, sent.two, sent.five]);
    expect(await ids({ attempt: 2 })).to.deep.equal([sent.one, sent.three]);
    expect(await ids({ attempt: "2" })).to.deep.equal([sent.two]);
    expect(await ids({ tenant: "a", attempt: 2 })).to.deep.equal([sent.one]);
    expect(await ids({ urgent: true })).to.deep.equal([sent.one]);
    expect(await ids({ urgent: false })).to.deep.equal([sent.two]);
    expect(await ids({ key: bytes })).to.deep.equal([sent.one]);
    expect(await ids({ key: new Uint8Array([0, 1, 254]) })).to.deep.equal([sent.five]);
    expect(await ids({ tenant: "c" })).to.deep.equal([]);
  });

  it("matches a value with a lone surrogate, and still finds a message that holds one by its other attributes", async () => {
    const lone = await rsmq.sendMessageAsync({ qname: "q", message: "lone", attributes: { tenant: "a", odd: "x\ud800y" } });
    const low = await rsmq.sendMessageAsync({ qname: "q", message: "low", attributes: { tenant: "a", odd: "\udc00" } });
    // Text that looks like the escape (a backslash, then "ud800") is another value.
    const text = await rsmq.sendMessageAsync({ qname: "q", message: "text", attributes: { tenant: "a", odd: "x\\ud800y" } });
    const emoji = await rsmq.sendMessageAsync({ qname: "q", message: "emoji", attributes: { tenant: "b", odd: "\u{1F600}" } });
    const ids = async (where: BrowseMessagesOptions["where"]) => (await browseAll({ where })).messages.map(({ id }) => id);
    expect(await ids({ tenant: "a" })).to.deep.equal([lone, low, text]);
    expect(await ids({ odd: "x\ud800y" })).to.deep.equal([lone]);
    expect(await ids({ odd: "\udc00" })).to.deep.equal([low]);
    expect(await ids({ odd: "x\\ud800y" })).to.deep.equal([text]);
    expect(await ids({ odd: "\u{1F600}" })).to.deep.equal([emoji]);
    const [first] = (await rsmq.browseMessagesAsync({ qname: "q", where: { odd: "x\ud800y" } })).messages;
    expect(first.attributes).to.deep.equal({ tenant: "a", odd: "x\ud800y" });
  });

  it("returns attributes of every type unchanged, bytes as a Buffer", async () => {
    const attributes = {
      tenant: "acme",
      text: "naïve ☃ \u{1F600}",
      long: "x".repeat(1024),
      integer: 42,
      float: -1.5,
      zero: 0,
      yes: true,
      no: false,
      bytes: Buffer.from([0x00, 0xff, 0x10]),
      big: Buffer.alloc(1024, 7),
    };
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "body", attributes });
    const [message] = (await rsmq.browseMessagesAsync({ qname: "q", where: { tenant: "acme" } })).messages;
    expect(message.id).to.equal(id);
    expect(message.message).to.equal("body");
    expect(message.attributes).to.deep.equal(attributes);
    expect(Buffer.isBuffer(message.attributes?.bytes)).to.equal(true);
  });

  it("keeps one state, and limits a page", async () => {
    const visible = [];
    for (let i = 0; i < 5; i++) visible.push(await rsmq.sendMessageAsync({ qname: "q", message: `v${i}` }));
    const delayed = await rsmq.sendMessageAsync({ qname: "q", message: "d", delay: 100 });
    const received = (await rsmq.receiveMessageAsync({ qname: "q", vt: 200 })) as { id: string };
    expect((await browseAll({ state: "visible" })).messages.map(({ id }) => id)).to.deep.equal(visible.slice(1));
    expect((await browseAll({ state: "delayed" })).messages.map(({ id }) => id)).to.deep.equal([delayed]);
    expect((await browseAll({ state: "inFlight" })).messages.map(({ id }) => id)).to.deep.equal([received.id]);
    const pages = await browseAll({ limit: 2 });
    expect(pages.calls).to.equal(3);
    expect(pages.messages.map(({ id }) => id)).to.deep.equal([...visible.slice(1), delayed, received.id]);
    const first = await rsmq.browseMessagesAsync({ qname: "q", limit: 2 });
    expect(first.messages.length).to.equal(2);
    expect(first.cursor).to.be.a("string");
  });

  it("lists a message that stays exactly once while others are received and sent between pages", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 30; i++)
      ids.push(await rsmq.sendMessageAsync({ qname: "q", message: `m${i}`, attributes: { tenant: i % 2 ? "odd" : "even" } }));
    const seen: string[] = [];
    let cursor: string | null = null;
    const added: string[] = [];
    const taken: string[] = [];
    do {
      const page = await rsmq.browseMessagesAsync({ qname: "q", limit: 4, cursor });
      seen.push(...page.messages.map(({ id }) => id));
      cursor = page.cursor;
      // Between pages: a receive takes the head (it moves to the back, hidden), a send adds one at the back.
      const message = (await rsmq.receiveMessageAsync({ qname: "q", vt: 60 })) as { id?: string };
      if (message.id) taken.push(message.id);
      added.push(await rsmq.sendMessageAsync({ qname: "q", message: "new" }));
    } while (cursor !== null && seen.length < 200);
    const stayed = ids.filter((id) => !taken.includes(id));
    for (const id of stayed) expect(seen.filter((one) => one === id).length, id).to.equal(1);
    // Each page took one from the head: 30 minus about one in four stayed for the whole walk.
    expect(stayed.length).to.be.greaterThan(10);
  });

  it("goes on after a message of the cursor was deleted, and across a batch of one score", async () => {
    const results = await rsmq.sendMessagesAsync({ qname: "q", messages: Array.from({ length: 50 }, (_, i) => ({ message: `b${i}` })) });
    const ids = results.map((result) => (result as { id: string }).id);
    const first = await rsmq.browseMessagesAsync({ qname: "q", limit: 10 });
    expect(first.messages.map(({ id }) => id)).to.deep.equal(ids.slice(0, 10));
    // The cursor's own message goes: the next page starts after where it was.
    await rsmq.deleteMessageAsync({ qname: "q", id: ids[9] });
    const second = await rsmq.browseMessagesAsync({ qname: "q", limit: 10, cursor: first.cursor });
    expect(second.messages.map(({ id }) => id)).to.deep.equal(ids.slice(10, 20));
  });

  it("ends a page before the body that would take it past 256 KiB (the first always comes)", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await rsmq.sendMessageAsync({ qname: "q", message: `${i}`.padEnd(60_000, "x"), tenant: "big" }));
    const first = await rsmq.browseMessagesAsync({ qname: "q", where: { tenant: "big" } });
    // 4 bodies of 60,000 bytes fit in 262,144; the fifth would not.
    expect(first.messages.map(({ id }) => id)).to.deep.equal(ids.slice(0, 4));
    expect(first.messages[0].message).to.have.length(60_000);
    const rest = await rsmq.browseMessagesAsync({ qname: "q", where: { tenant: "big" }, cursor: first.cursor });
    expect(rest.messages.map(({ id }) => id)).to.deep.equal(ids.slice(4));
    expect(rest.cursor).to.equal(null);
  });

  it("writes nothing and makes one read-only EVALSHA per page", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "x", attributes: { tenant: "a" } });
    const before = await client.hGetAll(keysOf(ns, "q").hash);
    const commands = await monitor(() => rsmq.browseMessagesAsync({ qname: "q", where: { tenant: "a" } }));
    expect(clientCommands(commands)).to.deep.equal(["evalsha_ro"]);
    expect(await client.hGetAll(keysOf(ns, "q").hash)).to.deep.equal(before);
  });

  it("refuses bad input before any round trip", async () => {
    const bad: Array<[unknown, string]> = [
      [{ qname: "q", where: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`n${i}`, i])) }, "where"],
      [{ qname: "q", where: {} }, "where"],
      [{ qname: "q", where: { "bad name": "a" } }, "a name in where"],
      [{ qname: "q", where: { tenant: "x".repeat(1025) } }, "where.tenant"],
      [{ qname: "q", where: { n: Infinity } }, "where.n"],
      [{ qname: "q", where: { n: null } }, "where.n"],
      [{ qname: "q", where: "tenant=a" }, "where"],
      [{ qname: "q", limit: 0 }, "limit"],
      [{ qname: "q", limit: 1001 }, "limit"],
      [{ qname: "q", limit: 1.5 }, "limit"],
      [{ qname: "q", state: "hidden" }, "state"],
      [{ qname: "q", cursor: "not a cursor!" }, "cursor"],
      [{ qname: "q", cursor: Buffer.from("12 ab cd").toString("base64url") }, "cursor"],
      [{ qname: "q", cursor: 5 }, "cursor"],
    ];
    const commands = await monitor(async () => {
      for (const [options, item] of bad) {
        const error = await rejectionOf(rsmq.browseMessagesAsync(options as BrowseMessagesOptions));
        expect(error.name, JSON.stringify(options)).to.equal("invalidValue");
        expect(error.message, JSON.stringify(options)).to.contain(`\`${item}\``);
      }
    });
    expect(clientCommands(commands)).to.deep.equal([]);
  });

  it("rejects queueNotFound, and the callback twin gets the page", async () => {
    expect((await rejectionOf(rsmq.browseMessagesAsync({ qname: "nope" }))).name).to.equal("queueNotFound");
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "x" });
    const page = await new Promise<{ messages: Array<{ id: string }>; cursor: string | null }>((resolve, reject) =>
      rsmq.browseMessages({ qname: "q" }, (error, result) => (error ? reject(error) : resolve(result as never))),
    );
    expect(page.messages.map((message) => message.id)).to.deep.equal([id]);
    expect(page.cursor).to.equal(null);
  });
});
