/**
 * sendMessages: up to 1000 messages in one EVALSHA. Results come back per entry in order, a batch
 * is received in entry order, each entry keeps its own delay, priority and dedupId, an entry
 * longer than maxsize is refused on its own, and any bad entry refuses the whole call before a
 * command is sent.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { dedupKey } from "../../lib/operations/dedup-id";
import { KeyLayout } from "../../lib/keys";
import { rejectionOf } from "../support/old-rsmq";
import { connectionOptions, keysOf, onCluster, plainClient, uniqueNs } from "../support/server";
import { clientCommands, monitor } from "../support/wire";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

type SentEntry = RedisSMQ.SentEntry;

describe("sendMessages", () => {
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

  const bodies = (count: number, prefix = "m"): Array<{ message: string }> =>
    Array.from({ length: count }, (_, i) => ({ message: `${prefix}${i}` }));
  const idsOf = (results: SentEntry[]): string[] => results.map((result) => result.id!);
  /** The dedup side key a dedupId claims, as lib/operations/dedup-id.ts names it for any send. */
  const sideKey = (dedupId: string | true, message: string): string =>
    dedupKey(KeyLayout.for(ns, onCluster()).queue("q"), dedupId, message);

  it("is one EVALSHA for a batch and answers { id, duplicate } per entry, in order", async () => {
    await rsmq.sendMessagesAsync({ qname: "q", messages: [{ message: "warm" }] }); // the server now has the script cached
    let results: SentEntry[] = [];
    const commands = await monitor(async () => {
      results = await rsmq.sendMessagesAsync({ qname: "q", messages: bodies(3) });
    });
    expect(clientCommands(commands)).to.deep.equal(["evalsha"]);
    expect(results).to.have.length(3);
    for (const result of results) {
      expect(Object.keys(result).sort()).to.deep.equal(["duplicate", "id"]);
      expect(result.id).to.match(/^[a-z0-9]{10}[A-Za-z0-9]{22}$/);
      expect(result.duplicate).to.equal(false);
    }
    expect(new Set(idsOf(results)).size).to.equal(3);
    const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
    expect(attributes.totalsent).to.equal(4);
    expect(attributes.msgs).to.equal(4);
  });

  it("has a batch of 100 received in entry order, with its bodies", async () => {
    const entries = bodies(100);
    const results = await rsmq.sendMessagesAsync({ qname: "q", messages: entries });
    const ids = idsOf(results);
    // One server time for the batch: the random parts make the order.
    expect(new Set(ids.map((id) => id.slice(0, 10))).size).to.equal(1);
    expect(new Set(ids).size).to.equal(100);
    const { messages } = await rsmq.receiveMessagesAsync({ qname: "q", count: 100 });
    expect(messages.map((m) => m.id)).to.deep.equal(ids);
    expect(messages.map((m) => m.message)).to.deep.equal(entries.map((e) => e.message));
  });

  it("keeps each entry's delay and priority", async () => {
    const [plain, delayed, urgent, later] = idsOf(
      await rsmq.sendMessagesAsync({
        qname: "q",
        messages: [{ message: "plain" }, { message: "delayed", delay: 60 }, { message: "urgent", priority: 9 }, { message: "later" }],
      }),
    );
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).hiddenmsgs).to.equal(1);
    const { messages } = await rsmq.receiveMessagesAsync({ qname: "q", count: 10 });
    expect(messages.map((m) => m.id)).to.deep.equal([urgent, plain, later]);
    expect(messages.map((m) => m.message)).to.deep.equal(["urgent", "plain", "later"]);
    const score = Number(await client.zScore(keysOf(ns, "q").messages, delayed));
    const sent = parseInt(delayed.slice(0, 10), 36) / 1000;
    expect(score).to.be.within(sent + 60_000 - 1, sent + 60_000 + 1);
  });

  describe("dedup", () => {
    it("makes the second entry with a dedupId of a batch a duplicate of the first", async () => {
      const results = await rsmq.sendMessagesAsync({
        qname: "q",
        messages: [{ message: "first", dedupId: "order-7" }, { message: "other" }, { message: "again", dedupId: "order-7" }],
      });
      expect(results[2]).to.deep.equal({ id: results[0].id, duplicate: true });
      expect(results[1].duplicate).to.equal(false);
      const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
      expect(attributes.msgs).to.equal(2);
      expect(attributes.totalsent).to.equal(2);
      expect(await client.get(sideKey("order-7", "first"))).to.equal(results[0].id);
      const ttl = await client.pTTL(sideKey("order-7", "first"));
      expect(ttl).to.be.within(1, 300_000);
      const { messages } = await rsmq.receiveMessagesAsync({ qname: "q", count: 10 });
      expect(messages.map((m) => m.message)).to.deep.equal(["first", "other"]);
    });

    it("finds a dedupId of an earlier call, and derives one from the body with `true`", async () => {
      const [first, derived] = await rsmq.sendMessagesAsync({
        qname: "q",
        messages: [
          { message: "a", dedupId: "x" },
          { message: "same body", dedupId: true },
        ],
        dedupWindowMs: 5000,
      });
      expect(await client.pTTL(sideKey("x", "a"))).to.be.within(1, 5000);
      expect(await client.pTTL(sideKey(true, "same body"))).to.be.within(1, 5000);
      const again = await rsmq.sendMessagesAsync({
        qname: "q",
        messages: [{ message: "b", dedupId: "x" }, { message: "same body", dedupId: true }, { message: "new" }],
      });
      expect(again.slice(0, 2)).to.deep.equal([
        { id: first.id, duplicate: true },
        { id: derived.id, duplicate: true },
      ]);
      expect(again[2].duplicate).to.equal(false);
      expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).totalsent).to.equal(3);
    });

    it("takes the queue's dedupwindow field when the call gives none", async () => {
      await client.hSet(keysOf(ns, "q").hash, "dedupwindow", "2000");
      await rsmq.sendMessagesAsync({ qname: "q", messages: [{ message: "a", dedupId: "w" }] });
      expect(await client.pTTL(sideKey("w", "a"))).to.be.within(1, 2000);
    });

    it("sends no notification and counts nothing when every entry is a duplicate", async () => {
      const realtime = new RedisSMQ({ ...connectionOptions(ns), realtime: true });
      try {
        await realtime.sendMessagesAsync({ qname: "q", messages: [{ message: "a", dedupId: "d" }] });
        const commands = await monitor(async () => {
          const [result] = await realtime.sendMessagesAsync({ qname: "q", messages: [{ message: "a", dedupId: "d" }] });
          expect(result.duplicate).to.equal(true);
        });
        expect(commands.filter((c) => c.name === "publish" || c.name === "spublish")).to.deep.equal([]);
        expect((await realtime.getQueueAttributesAsync({ qname: "q" })).totalsent).to.equal(1);
      } finally {
        await realtime.quitAsync();
      }
    });
  });

  it("refuses an entry longer than maxsize on its own and stores the others", async () => {
    await rsmq.setQueueAttributesAsync({ qname: "q", maxsize: 1024 });
    const results = await rsmq.sendMessagesAsync({
      qname: "q",
      messages: [{ message: "short" }, { message: "x".repeat(1025), dedupId: "long" }, { message: "also short" }],
    });
    expect(results[1].id).to.equal(undefined);
    expect(results[1].error!.name).to.equal("messageTooLong");
    expect(results[1].error!.message).to.equal("Message too long");
    expect(results[0].duplicate).to.equal(false);
    expect(results[2].duplicate).to.equal(false);
    // The refused entry claimed no dedupId.
    expect(await client.exists(sideKey("long", "x".repeat(1025)))).to.equal(0);
    const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
    expect(attributes.msgs).to.equal(2);
    expect(attributes.totalsent).to.equal(2);
  });

  it("rejects queueNotFound for a missing queue, writing nothing", async () => {
    const error = await rejectionOf(rsmq.sendMessagesAsync({ qname: "nope", messages: [{ message: "a", dedupId: "n" }] }));
    expect(error.name).to.equal("queueNotFound");
    const keys = keysOf(ns, "nope");
    expect(await client.exists([keys.messages, keys.hash])).to.equal(0);
    expect(await client.exists(dedupKey(keys, "n", "a"))).to.equal(0);
  });

  describe("attributes and tenants", () => {
    it("stores each entry's attributes as <id>:at, and a plain entry beside them stores none", async () => {
      const results = await rsmq.sendMessagesAsync({
        qname: "q",
        messages: [
          { message: "a", attributes: { n: 2, urgent: true } },
          { message: "b" },
          { message: "c", tenant: "acme", attributes: { s: "x" } },
        ],
      });
      const hash = keysOf(ns, "q").hash;
      expect(await client.hGet(hash, `${results[0].id}:at`)).to.equal(JSON.stringify({ a: { n: 2, urgent: true } }));
      expect(await client.hExists(hash, `${results[1].id}:at`)).to.equal(false);
      expect(await client.hGet(hash, `${results[2].id}:at`)).to.equal(JSON.stringify({ a: { s: "x", tenant: "acme" } }));
      expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).totalsent).to.equal(3);
    });

    it("counts an entry's attributes against maxsize with its body: that entry alone is refused", async () => {
      await rsmq.setQueueAttributesAsync({ qname: "q", maxsize: 1024 });
      const body = "b".repeat(1000);
      const attributes = { s: "s".repeat(40) };
      const json = JSON.stringify({ a: attributes });
      expect(body.length).to.be.at.most(1024);
      expect(body.length + json.length).to.be.above(1024);
      const results = await rsmq.sendMessagesAsync({ qname: "q", messages: [{ message: body }, { message: body, attributes }] });
      expect(results[0].id).to.be.a("string");
      expect(results[1].error?.name).to.equal("messageTooLong");
      expect(await client.zCard(keysOf(ns, "q").messages)).to.equal(1);
      expect((await client.hKeys(keysOf(ns, "q").hash)).filter((field) => field.endsWith(":at"))).to.deep.equal([]);
    });
  });

  describe("bad input: the whole call refused before any round trip", () => {
    const good = { message: "fine" };
    const cases: Array<[string, unknown, string, RegExp]> = [
      ["no messages", undefined, "missingParameter", /^No messages supplied$/],
      ["an empty batch", [], "missingParameter", /^No messages supplied$/],
      ["not an array", "hello", "invalidValue", /messages must be an array/],
      ["1001 entries", Array.from({ length: 1001 }, () => good), "invalidValue", /at most 1000 entries, got 1001/],
      ["an entry that is not an object", [good, null], "invalidValue", /^messages\[1\]: /],
      ["a message that is not a string", [good, { message: 5 }], "messageNotString", /^messages\[1\]: Message must be a string$/],
      ["a bad delay", [good, good, { message: "x", delay: -1 }], "invalidValue", /^messages\[2\]: delay must be between/],
      ["a priority out of range", [{ message: "x", priority: 10 }], "invalidValue", /^messages\[0\]: priority must be/],
      ["an empty dedupId", [good, { message: "x", dedupId: "" }], "invalidValue", /^messages\[1\]: dedupId must be/],
      ["a dedupId too long", [{ message: "x", dedupId: "d".repeat(129) }], "invalidValue", /^messages\[0\]: dedupId must be/],
      ["a tenant too long", [good, { message: "x", tenant: "t".repeat(129) }], "invalidValue", /messages\[1\]\.tenant/],
      ["a tenant with a control character", [{ message: "x", tenant: "a\u0007" }], "invalidValue", /messages\[0\]\.tenant/],
      ["a tenant that is not a string", [{ message: "x", tenant: 1 }], "invalidValue", /messages\[0\]\.tenant/],
      [
        "11 attributes",
        [good, { message: "x", attributes: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, i])) }],
        "invalidValue",
        /messages\[1\]\.attributes/,
      ],
      ["an attribute too long", [{ message: "x", attributes: { s: "s".repeat(1025) } }], "invalidValue", /messages\[0\]\.attributes\.s/],
    ];
    for (const [what, messages, name, message] of cases) {
      it(`refuses ${what}`, async () => {
        let error: Error | undefined;
        const commands = await monitor(async () => {
          error = await rejectionOf(rsmq.sendMessagesAsync({ qname: "q", messages } as RedisSMQ.SendMessagesOptions));
        });
        expect(error!.name).to.equal(name);
        expect(error!.message).to.match(message);
        expect(clientCommands(commands)).to.deep.equal([]);
      });
    }

    it("refuses a bad dedupWindowMs and a bad qname", async () => {
      const commands = await monitor(async () => {
        const window = await rejectionOf(rsmq.sendMessagesAsync({ qname: "q", messages: [good], dedupWindowMs: 0 }));
        expect(window.name).to.equal("invalidValue");
        const qname = await rejectionOf(rsmq.sendMessagesAsync({ qname: "no such!", messages: [good] }));
        expect(qname.name).to.equal("invalidFormat");
      });
      expect(clientCommands(commands)).to.deep.equal([]);
      expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).totalsent).to.equal(0);
    });
  });

  it("takes 1000 entries in one call", async () => {
    const results = await rsmq.sendMessagesAsync({ qname: "q", messages: bodies(1000) });
    expect(results).to.have.length(1000);
    expect(new Set(idsOf(results)).size).to.equal(1000);
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(1000);
  });

  it("publishes one realtime notification per batch", async () => {
    const realtime = new RedisSMQ({ ...connectionOptions(ns), realtime: true });
    try {
      await realtime.sendMessagesAsync({ qname: "q", messages: [{ message: "warm" }] });
      const commands = await monitor(() => realtime.sendMessagesAsync({ qname: "q", messages: bodies(5) }));
      expect(clientCommands(commands)).to.deep.equal(["evalsha"]);
      expect(commands.filter((c) => c.name === "publish" || c.name === "spublish")).to.have.length(1);
    } finally {
      await realtime.quitAsync();
    }
  });

  it("has a callback twin", async () => {
    const results = await new Promise<SentEntry[]>((resolve, reject) =>
      rsmq.sendMessages({ qname: "q", messages: bodies(2) }, (err, value) => (err ? reject(err) : resolve(value))),
    );
    expect(results.map((r) => r.duplicate)).to.deep.equal([false, false]);
    const error = await new Promise<Error>((resolve) => rsmq.sendMessages({ qname: "q", messages: [] }, (err) => resolve(err as Error)));
    expect(error.name).to.equal("missingParameter");
  });
});
