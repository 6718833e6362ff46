/**
 * A queue's retention in the receive path (docs/retention.md): receive, batch receive, pop and
 * receiveMessageOrNextDue never return a message older than the retention; the expired ones they
 * meet are deleted with every field of theirs and counted in `totalexpired`, or with an `expireTo`
 * moved there with reason "expired" (atomic on one server, the two-step move across Cluster
 * slots). Old messages are planted with an old time in their id, as rsmq lays ids out.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { DeadLetterMover } from "../../lib/dead-letters/dead-letter-mover";
import { expiredRecord } from "../../lib/retention/expired-moves";
import { groupDeadLetters } from "../../lib/queue-state/dead-letter-groups";
import { asMessage } from "../support/old-rsmq";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { fieldsOf, plantMessages, setRetention } from "../support/retention";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

describe("Retention: the receive path", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = new RedisSMQ(connectionOptions(ns));
    client = await plainClient();
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(async () => {
    await rsmq.quitAsync();
    await client.quit();
  });

  const totalExpired = async (qname: string) => Number((await client.hGet(keysOf(ns, qname).hash, "totalexpired")) ?? 0);

  it("receive skips and deletes expired messages, with every field, and counts them", async () => {
    await setRetention(client, ns, "q", 3600);
    const old = await plantMessages(client, ns, "q", { count: 3, ageSeconds: 7200 });
    const fresh = await plantMessages(client, ns, "q", { count: 1, ageSeconds: 10, prefix: "fresh" });
    const got = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    expect(got.id).to.equal(fresh[0].id);
    expect(got.message).to.equal("fresh-0");
    expect(
      await fieldsOf(
        client,
        ns,
        "q",
        old.map((m) => m.id),
      ),
    ).to.deep.equal([]);
    expect(await client.zCard(keysOf(ns, "q").messages)).to.equal(1);
    expect(await totalExpired("q")).to.equal(3);
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
  });

  it("an age just under the retention is live; a queue without retention keeps old messages", async () => {
    await setRetention(client, ns, "q", 3600);
    const [young] = await plantMessages(client, ns, "q", { count: 1, ageSeconds: 3590 });
    expect(asMessage(await rsmq.receiveMessageAsync({ qname: "q" })).id).to.equal(young.id);
    await rsmq.createQueueAsync({ qname: "keep" });
    const [ancient] = await plantMessages(client, ns, "keep", { count: 1, ageSeconds: 10 * 365 * 86400 });
    expect(asMessage(await rsmq.popMessageAsync({ qname: "keep" })).id).to.equal(ancient.id);
    expect(await client.hExists(keysOf(ns, "keep").hash, "totalexpired")).to.equal(false);
  });

  it("batch receive fills its batch from the live ones behind the expired", async () => {
    await setRetention(client, ns, "q", 60);
    await plantMessages(client, ns, "q", { count: 2, ageSeconds: 120, prefix: "a" });
    const live1 = await plantMessages(client, ns, "q", { count: 2, ageSeconds: 1, prefix: "live1" });
    await plantMessages(client, ns, "q", { count: 3, ageSeconds: 120, prefix: "b" });
    const live2 = await plantMessages(client, ns, "q", { count: 2, ageSeconds: 1, prefix: "live2" });
    const { messages } = await rsmq.receiveMessagesAsync({ qname: "q", count: 3 });
    expect(messages.map((m) => m.message)).to.deep.equal(["live1-0", "live1-1", "live2-0"]);
    expect(await totalExpired("q")).to.equal(5);
    const next = await rsmq.receiveMessageOrNextDueAsync({ qname: "q" });
    expect(next.status === "received" && next.message.id).to.equal(live2[1].id);
    expect(live1).to.have.length(2);
  });

  it("pop deletes the expired ones it meets and pops the next live one", async () => {
    await setRetention(client, ns, "q", 60);
    await plantMessages(client, ns, "q", { count: 4, ageSeconds: 120 });
    const [live] = await plantMessages(client, ns, "q", { count: 1, ageSeconds: 1, prefix: "live" });
    expect(asMessage(await rsmq.popMessageAsync({ qname: "q" })).id).to.equal(live.id);
    expect(await totalExpired("q")).to.equal(4);
    expect(await client.zCard(keysOf(ns, "q").messages)).to.equal(0);
  });

  it("expires at most 100 per call: bounded work, and the next call goes on", async () => {
    await setRetention(client, ns, "q", 60);
    await plantMessages(client, ns, "q", { count: 150, ageSeconds: 120 });
    // Due after all of them, however long planting them took.
    const [live] = await plantMessages(client, ns, "q", { count: 1, ageSeconds: 1, prefix: "live", dueInMs: -1000 });
    const first = await rsmq.receiveMessageOrNextDueAsync({ qname: "q" });
    expect(first).to.deep.equal({ status: "waiting", nextDueMs: 0 });
    expect(await totalExpired("q")).to.equal(100);
    expect(asMessage(await rsmq.receiveMessageAsync({ qname: "q" })).id).to.equal(live.id);
    expect(await totalExpired("q")).to.equal(150);
  });

  it("leaves hidden expired messages to the sweep: a receive takes only due ones", async () => {
    await setRetention(client, ns, "q", 60);
    const [hidden] = await plantMessages(client, ns, "q", { count: 1, ageSeconds: 120, dueInMs: 60_000 });
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    expect(await client.hGet(keysOf(ns, "q").hash, hidden.id)).to.equal(hidden.body);
  });

  describe("with expireTo", () => {
    beforeEach(async () => {
      await setRetention(client, ns, "q", 60, "q-expired");
    });

    it("moves expired messages there with reason expired, and counts them in the source", async () => {
      const old = await plantMessages(client, ns, "q", { count: 2, ageSeconds: 120 });
      const [live] = await plantMessages(client, ns, "q", { count: 1, ageSeconds: 1, prefix: "live" });
      expect(asMessage(await rsmq.receiveMessageAsync({ qname: "q" })).id).to.equal(live.id);
      expect(await totalExpired("q")).to.equal(2);
      const moved = await rsmq.peekMessagesAsync({ qname: "q-expired" });
      expect(moved.map((m) => [m.id, m.message, m.deadLetter?.reason, m.deadLetter?.source, m.deadLetter?.deliveries])).to.deep.equal(
        old.map((m) => [m.id, m.body, "expired", "q", 1]),
      );
      // The age counts from the original send: the id is kept.
      expect(moved[0].sent).to.be.below(Date.now() - 100_000);
      expect(
        await fieldsOf(
          client,
          ns,
          "q",
          old.map((m) => m.id),
        ),
      ).to.deep.equal([]);
      // The dashboard groups them under their reason.
      expect(groupDeadLetters(moved.map((m) => m.deadLetter)).map((g) => [g.reason, g.count])).to.deep.equal([["expired", 2]]);
    });

    it("pop moves them too", async () => {
      await plantMessages(client, ns, "q", { count: 1, ageSeconds: 120 });
      expect(await rsmq.popMessageAsync({ qname: "q" })).to.deep.equal({});
      expect((await rsmq.getQueueAttributesAsync({ qname: "q-expired" })).msgs).to.equal(1);
      expect(await totalExpired("q")).to.equal(1);
    });

    it("a failed move fails no receive: one warning, the message stays parked, and moves later", async () => {
      const [old] = await plantMessages(client, ns, "q", { count: 1, ageSeconds: 120 });
      const [live] = await plantMessages(client, ns, "q", { count: 1, ageSeconds: 1, prefix: "live" });
      // A target hash of the wrong type: every move into it fails.
      await client.set(keysOf(ns, "q-expired").hash, "not a hash");
      const warnings: Array<{ code?: string }> = [];
      const onWarning = (warning: Error & { code?: string }) => warnings.push(warning);
      process.on("warning", onWarning);
      try {
        expect(asMessage(await rsmq.receiveMessageAsync({ qname: "q" })).id).to.equal(live.id);
        await new Promise((resolve) => setImmediate(resolve));
      } finally {
        process.off("warning", onWarning);
      }
      expect(warnings.map((w) => w.code)).to.deep.equal(["RSMQ_NEXT_EXPIRED_MOVE_FAILED"]);
      const parkedUntil = Number(await client.zScore(keysOf(ns, "q").messages, old.id));
      expect(parkedUntil).to.be.above(Date.now() + 30_000);
      expect(await totalExpired("q")).to.equal(0);
      // The hold ends (brought forward here): the next receive parks and moves it.
      await client.del(keysOf(ns, "q-expired").hash);
      await client.zAdd(keysOf(ns, "q").messages, { score: 0, value: old.id });
      expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
      expect((await rsmq.peekMessagesAsync({ qname: "q-expired" })).map((m) => m.id)).to.deep.equal([old.id]);
      expect(await totalExpired("q")).to.equal(1);
    });

    it("a crash between the two-step move's steps loses nothing and counts once", async () => {
      const [old] = await plantMessages(client, ns, "q", { count: 1, ageSeconds: 120 });
      const [live] = await plantMessages(client, ns, "q", { count: 1, ageSeconds: 1, prefix: "live", dueInMs: 60_000 });
      const message = { id: old.id, message: old.body, rc: 1, fr: 0, sent: 0 };
      const crashing = new DeadLetterMover(internalsOf(rsmq), {
        atomic: false,
        afterCopy: () => {
          throw new Error("crash");
        },
      });
      const why = expiredRecord("q", { id: old.id, message: old.body, rc: 1 });
      await crashing.move("q", "q-expired", message, why).then(
        () => expect.fail("the crash"),
        (error: Error) => expect(error.message).to.equal("crash"),
      );
      // In both queues, never in neither; the source has not counted it yet.
      expect(await client.hGet(keysOf(ns, "q").hash, old.id)).to.equal(old.body);
      expect(await client.hGet(keysOf(ns, "q-expired").hash, old.id)).to.equal(old.body);
      expect(await totalExpired("q")).to.equal(0);
      expect(await new DeadLetterMover(internalsOf(rsmq), { atomic: false }).move("q", "q-expired", message, why)).to.equal(true);
      expect(await totalExpired("q")).to.equal(1);
      expect((await rsmq.getQueueAttributesAsync({ qname: "q-expired" })).totalsent).to.equal(1);
      // The live one was never touched.
      expect(await client.hGet(keysOf(ns, "q").hash, live.id)).to.equal(live.body);
    });
  });
});
