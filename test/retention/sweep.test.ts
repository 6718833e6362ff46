/**
 * sweepExpiredAsync (docs/retention.md): the expired messages no receive meets (hidden: in flight,
 * delayed) and those of a queue nobody reads go, in chunks under the queue's sweep lock, at most one
 * sweeper at a time; two racing sweepers remove nothing twice and the counter stays exact.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { serverNowMs } from "../support/inspect";
import { fieldsOf, plantMessages, setRetention } from "../support/retention";
import { rejectionOf } from "../support/old-rsmq";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

describe("Retention: the sweep", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = new RedisSMQ(connectionOptions(ns));
    client = await plainClient();
    await rsmq.createQueueAsync({ qname: "q" });
    await setRetention(client, ns, "q", 60);
  });
  afterEach(async () => {
    await rsmq.quitAsync();
    await client.quit();
  });

  const totalExpired = async () => Number((await client.hGet(keysOf(ns, "q").hash, "totalexpired")) ?? 0);

  it("sweeps an unread queue, hidden and due alike, in chunks, and keeps the live ones", async () => {
    const hidden = await plantMessages(client, ns, "q", { count: 230, ageSeconds: 120, dueInMs: 600_000 });
    const due = await plantMessages(client, ns, "q", { count: 20, ageSeconds: 120 });
    const live = await plantMessages(client, ns, "q", { count: 5, ageSeconds: 1, dueInMs: 600_000, prefix: "live" });
    const result = await rsmq.sweepExpiredAsync({ qname: "q" });
    expect(result).to.deep.equal({ expired: 250, moved: 0, failed: 0, chunks: 3, busy: false });
    expect(await totalExpired()).to.equal(250);
    expect(
      await fieldsOf(
        client,
        ns,
        "q",
        [...hidden, ...due].map((m) => m.id),
      ),
    ).to.deep.equal([]);
    expect((await client.zRange(keysOf(ns, "q").messages, 0, -1)).sort()).to.deep.equal(live.map((m) => m.id).sort());
    const hash = await client.hGetAll(keysOf(ns, "q").hash);
    expect(hash.sweeplock).to.equal(undefined);
    expect(Number(hash.sweptat)).to.be.within((await serverNowMs(client)) - 10_000, await serverNowMs(client));
    expect(await rsmq.sweepExpiredAsync({ qname: "q" })).to.deep.equal({ expired: 0, moved: 0, failed: 0, chunks: 1, busy: false });
  });

  it("moves them to expireTo with reason expired", async () => {
    await client.hSet(keysOf(ns, "q").hash, "expireto", "q-expired");
    const hidden = await plantMessages(client, ns, "q", { count: 3, ageSeconds: 120, dueInMs: 600_000 });
    expect(await rsmq.sweepExpiredAsync({ qname: "q" })).to.deep.equal({ expired: 3, moved: 3, failed: 0, chunks: 1, busy: false });
    const moved = await rsmq.peekMessagesAsync({ qname: "q-expired" });
    expect(moved.map((m) => [m.id, m.deadLetter?.reason])).to.deep.equal(hidden.map((m) => [m.id, "expired"]));
    expect(await totalExpired()).to.equal(3);
  });

  it("two sweepers racing: both finish, nothing is removed twice, the counter is exact", async () => {
    await plantMessages(client, ns, "q", { count: 400, ageSeconds: 120, dueInMs: 600_000 });
    const other = new RedisSMQ(connectionOptions(ns));
    try {
      const [a, b] = await Promise.all([rsmq.sweepExpiredAsync({ qname: "q" }), other.sweepExpiredAsync({ qname: "q" })]);
      expect(a.expired + b.expired).to.equal(400);
      // One held the lock: the other was told so (or came after the pass and found nothing left).
      expect([a, b].filter((r) => r.busy || r.expired === 0)).to.have.length(1);
      expect(await totalExpired()).to.equal(400);
      expect(await client.zCard(keysOf(ns, "q").messages)).to.equal(0);
    } finally {
      await other.quitAsync();
    }
  });

  it("waits out another sweeper's lock until it lapses, on the server's clock", async () => {
    await plantMessages(client, ns, "q", { count: 2, ageSeconds: 120, dueInMs: 600_000 });
    const now = await serverNowMs(client);
    await client.hSet(keysOf(ns, "q").hash, "sweeplock", `someone:${now + 60_000}`);
    expect(await rsmq.sweepExpiredAsync({ qname: "q" })).to.deep.equal({ expired: 0, moved: 0, failed: 0, chunks: 1, busy: true });
    expect(await client.zCard(keysOf(ns, "q").messages)).to.equal(2);
    // A lock whose holder stopped renewing it lapses.
    await client.hSet(keysOf(ns, "q").hash, "sweeplock", `someone:${now - 1}`);
    expect((await rsmq.sweepExpiredAsync({ qname: "q" })).expired).to.equal(2);
  });

  it("a queue without retention is done at once; bad input fails before any round trip", async () => {
    await rsmq.createQueueAsync({ qname: "plain" });
    await plantMessages(client, ns, "plain", { count: 2, ageSeconds: 10 * 86400, dueInMs: 600_000 });
    expect(await rsmq.sweepExpiredAsync({ qname: "plain" })).to.deep.equal({ expired: 0, moved: 0, failed: 0, chunks: 1, busy: false });
    expect(await client.zCard(keysOf(ns, "plain").messages)).to.equal(2);
    expect((await rejectionOf(rsmq.sweepExpiredAsync({ qname: "no such" }))).name).to.equal("invalidFormat");
    expect((await rejectionOf(rsmq.sweepExpiredAsync({ qname: "missing" }))).name).to.equal("queueNotFound");
    await new Promise<void>((resolve, reject) =>
      rsmq.sweepExpired({ qname: "q" }, (error, result) => (error ? reject(error) : (expect(result?.busy).to.equal(false), resolve()))),
    );
  });
});
