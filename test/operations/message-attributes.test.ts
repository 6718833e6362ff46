/**
 * A message's attributes `<id>:at` (JSON; a schedule writes {"schedule":"<name>","slot":<ms>} with
 * each message it sends): every receive reads it (a user's attributes, under "a", come back as
 * `message.attributes`: test/attributes/), and the receives that ask for the schedule (the
 * Worker's) set `message.schedule` from it; the public receives leave `schedule` out, so a
 * schedule's message keeps rsmq's shape there. Removed with the message by every path that
 * removes one, swept from an empty queue when an rsmq 0.12.4 delete left it, and known to the
 * doctor. The fields are written here with HSET, as a schedule's fire writes them.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { internalsOf } from "../../lib/internals";
import { DeadLetterMover } from "../../lib/dead-letters/dead-letter-mover";
import type { StopRecord } from "../../lib/operations/dead-letter";
import type { ScheduledMessageInfo } from "../../lib/types";
import { deleteAndReceiveMessages } from "../../lib/operations/delete-and-receive";
import { receiveMessages } from "../../lib/operations/receive-message";
import { asMessage, openOldRsmq } from "../support/old-rsmq";
import type { Rsmq } from "../support/old-rsmq";
import { idSentAt, plantMessages, setRetention } from "../support/retention";
import { serverNowMs } from "../support/inspect";
import { openAttributesQueue } from "../support/attribute-values";
import { connectionOptions, keysOf, singleServerOnly } from "../support/server";
import { Cleanup, waitFor } from "../support/worker";
import { otelSdk } from "../support/otel";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;

/** What a schedule's fire stores as `<id>:at`. */
const attributesOf = (name: string, slot: number): string => JSON.stringify({ schedule: name, slot });

describe("message attributes (<id>:at)", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let redis: RedisClientType;
  const cleanup = new Cleanup();
  const hash = (qname = "q"): string => keysOf(ns, qname).hash;
  const atFields = async (qname = "q"): Promise<string[]> => (await redis.hKeys(hash(qname))).filter((field) => field.endsWith(":at"));

  beforeEach(async () => {
    ({ ns, rsmq, redis } = await openAttributesQueue(cleanup));
  });
  afterEach(() => cleanup.run());

  /** Sends `count` messages, each with the attributes of slot `1000 * (i + 1)` of schedule "nightly". */
  async function sendScheduled(count: number, qname = "q"): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const id = await rsmq.sendMessageAsync({ qname, message: `m${i}` });
      await redis.hSet(hash(qname), `${id}:at`, attributesOf("nightly", 1000 * (i + 1)));
      ids.push(id);
    }
    return ids;
  }

  const internals = () => internalsOf(rsmq);
  const receive = (count: number, details: boolean, schedule: boolean) =>
    internals().run(() => receiveMessages(internals().layout, { qname: "q" }, count, details, schedule));

  describe("receives", () => {
    it("a receive that asks for the schedule sets it on the messages a schedule sent, one or a batch, with details or without", async () => {
      const [first, second, third] = await sendScheduled(3);
      const plain = await rsmq.sendMessageAsync({ qname: "q", message: "plain" });

      const one = await receive(1, false, true);
      expect(one.messages).to.have.length(1);
      expect(one.messages[0]).to.deep.include({ id: first, message: "m0", rc: 1, schedule: { name: "nightly", slot: 1000 } });

      const detailed = await receive(1, true, true);
      expect(detailed.messages[0]).to.deep.include({ id: second, schedule: { name: "nightly", slot: 2000 } });
      expect(detailed.details).to.have.length(1);
      expect(detailed.details![0].carrier).to.equal(undefined);

      const batch = await receive(5, true, true);
      expect(batch.messages.map((m) => [m.id, m.schedule])).to.deep.equal([
        [third, { name: "nightly", slot: 3000 }],
        [plain, undefined],
      ]);
      expect(batch.details).to.have.length(2);
      expect("schedule" in batch.messages[1]).to.equal(false);
    });

    it("attributes that are not a schedule's, or unreadable, give no schedule", async () => {
      const ids = await sendScheduled(3);
      await redis.hSet(hash(), `${ids[0]}:at`, "{not json");
      await redis.hSet(hash(), `${ids[1]}:at`, JSON.stringify({ other: 1 }));
      await redis.hSet(hash(), `${ids[2]}:at`, JSON.stringify({ schedule: "s", slot: "soon" }));
      const batch = await receive(3, false, true);
      expect(batch.messages.map((m) => m.id)).to.deep.equal(ids);
      for (const message of batch.messages) expect("schedule" in message).to.equal(false);
    });

    it("the public receives answer rsmq's message shape for a schedule's message: no schedule, no attributes", async () => {
      await sendScheduled(4);
      const shape = ["fr", "id", "message", "rc", "sent"];
      expect(Object.keys(asMessage(await rsmq.receiveMessageAsync({ qname: "q" }))).sort()).to.deep.equal(shape);
      const { messages } = await rsmq.receiveMessagesAsync({ qname: "q", count: 2 });
      for (const message of messages) expect(Object.keys(message).sort()).to.deep.equal(shape);
      const result = await rsmq.receiveMessageOrNextDueAsync({ qname: "q" });
      if (result.status !== "received") throw new Error(`expected received, got ${JSON.stringify(result)}`);
      expect(Object.keys(result.message).sort()).to.deep.equal(shape);
    });

    it("a receive that does not ask for the schedule sets none", async () => {
      await sendScheduled(2);
      expect("schedule" in (await receive(1, false, false)).messages[0]).to.equal(false);
      expect("schedule" in (await receive(1, true, false)).messages[0]).to.equal(false);
    });

    it("deleteAndReceive that asks for the schedule deletes, then receives with it; the public one without", async () => {
      const ids = await sendScheduled(3);
      const result = await internals().run(() =>
        deleteAndReceiveMessages(internals().layout, { qname: "q", ids: [ids[0]] }, 1, false, true),
      );
      expect(result.deleted).to.deep.equal([1]);
      expect(result.batch.messages.map((m) => [m.id, m.schedule])).to.deep.equal([[ids[1], { name: "nightly", slot: 2000 }]]);
      expect(await atFields()).to.not.include(`${ids[0]}:at`);

      const batch = await internals().run(() => deleteAndReceiveMessages(internals().layout, { qname: "q", ids: [] }, 5, true, true));
      expect(batch.batch.messages.map((m) => m.schedule)).to.deep.equal([{ name: "nightly", slot: 3000 }]);

      const publicOne = await rsmq.deleteAndReceiveAsync({ qname: "q", id: ids[1] });
      expect(publicOne.deleted).to.equal(1);
      expect(publicOne.message).to.deep.equal({});
    });

    it("the public deleteAndReceive's message has no schedule", async () => {
      const ids = await sendScheduled(2);
      const { message } = await rsmq.deleteAndReceiveAsync({ qname: "q", id: ids[0] });
      expect(Object.keys(message).sort()).to.deep.equal(["fr", "id", "message", "rc", "sent"]);
    });

    it("a Worker's handler gets message.schedule, through its receives and its deleteAndReceives", async () => {
      const ids = await sendScheduled(4);
      const plain = await rsmq.sendMessageAsync({ qname: "q", message: "plain" });
      const seen: Array<[string, ScheduledMessageInfo | undefined]> = [];
      const worker = cleanup.worker(
        new Worker(rsmq, { qname: "q", concurrency: 1, handler: (message) => void seen.push([message.id, message.schedule]) }),
      );
      worker.start();
      await waitFor(() => seen.length === 5, "the five messages handled");
      await worker.stop();
      expect(seen).to.deep.equal([
        ...ids.map((id, i): [string, ScheduledMessageInfo] => [id, { name: "nightly", slot: 1000 * (i + 1) }]),
        [plain, undefined],
      ]);
      // Each deleted with its attributes.
      expect(await atFields()).to.deep.equal([]);
    });
    it("a Worker whose instance records telemetry (its receive asks for details too) gets message.schedule", async () => {
      const sdk = otelSdk();
      const traced = cleanup.rsmq(new RedisSMQ({ ...connectionOptions(ns), telemetry: { tracerProvider: sdk.tracerProvider } }));
      const ids = await sendScheduled(2);
      const seen: Array<ScheduledMessageInfo | undefined> = [];
      const worker = cleanup.worker(
        new Worker(traced, { qname: "q", concurrency: 1, handler: (message) => void seen.push(message.schedule) }),
      );
      worker.start();
      await waitFor(() => seen.length === 2, "both messages handled");
      await worker.stop();
      expect(seen).to.deep.equal(ids.map((_, i) => ({ name: "nightly", slot: 1000 * (i + 1) })));
    });
  });

  describe("every path that removes a message removes its attributes", () => {
    it("deleteMessage, deleteMessages, deleteAndReceive, popMessage", async () => {
      const ids = await sendScheduled(5);
      await rsmq.deleteMessageAsync({ qname: "q", id: ids[0] });
      await rsmq.deleteMessagesAsync({ qname: "q", ids: [ids[1], ids[2]] });
      await rsmq.deleteAndReceiveAsync({ qname: "q", id: ids[3] });
      expect(await atFields()).to.deep.equal([`${ids[4]}:at`]);
      // The deleteAndReceive took the last one (hidden): make it due again for the pop.
      await redis.zAdd(keysOf(ns, "q").messages, { score: 0, value: ids[4] });
      expect(asMessage(await rsmq.popMessageAsync({ qname: "q" })).id).to.equal(ids[4]);
      expect(await atFields()).to.deep.equal([]);
    });

    it("purgeQueue", async () => {
      await sendScheduled(3);
      await rsmq.purgeQueueAsync({ qname: "q" });
      expect(await atFields()).to.deep.equal([]);
    });

    it("retention expiry: deleted by a receive, and by a sweep", async () => {
      await setRetention(redis, ns, "q", 60);
      const expired = await plantMessages(redis, ns, "q", { count: 3, ageSeconds: 3600 });
      for (const { id } of expired) await redis.hSet(hash(), `${id}:at`, attributesOf("hourly", 1));
      expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
      expect(await atFields()).to.deep.equal([]);

      const swept = await plantMessages(redis, ns, "q", { count: 3, ageSeconds: 3600, dueInMs: 60_000 });
      for (const { id } of swept) await redis.hSet(hash(), `${id}:at`, attributesOf("hourly", 2));
      await rsmq.sweepExpiredAsync({ qname: "q" });
      expect(await atFields()).to.deep.equal([]);
    });

    it("retention expiry into expireTo: the parked messages leave theirs behind nowhere", async () => {
      await rsmq.createQueueAsync({ qname: "old" });
      await setRetention(redis, ns, "q", 60, "old");
      const expired = await plantMessages(redis, ns, "q", { count: 2, ageSeconds: 3600 });
      for (const { id } of expired) await redis.hSet(hash(), `${id}:at`, attributesOf("hourly", 1));
      expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
      await waitFor(async () => (await redis.zCard(keysOf(ns, "old").messages)) === 2, "both moved to expireTo");
      await waitFor(async () => (await atFields()).length === 0, "their attributes gone from the source");
      // A moved message keeps its attributes (the schedule that sent it included), as a dead letter does.
      expect((await atFields("old")).sort()).to.deep.equal(expired.map(({ id }) => `${id}:at`).sort());
      for (const { id } of expired) expect(await redis.hGet(hash("old"), `${id}:at`)).to.equal(attributesOf("hourly", 1));
    });

    const why: StopRecord = { source: "q", deliveries: 1, reason: "poison", error: "bad payload" };
    for (const atomic of [undefined, false]) {
      it(`a dead-letter move (${atomic === false ? "two steps" : "one script where the slots allow"})`, async () => {
        const [id] = await sendScheduled(1);
        const message = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
        expect(await new DeadLetterMover(internals(), { atomic }).move("q", "dlq", message, why)).to.equal(true);
        expect(await redis.zCard(keysOf(ns, "dlq").messages)).to.equal(1);
        expect(await atFields()).to.deep.equal([]);
        // A dead letter keeps its attributes, the schedule that sent it included.
        expect(await atFields("dlq")).to.deep.equal([`${id}:at`]);
        expect(await redis.hGet(hash("dlq"), `${id}:at`)).to.equal(attributesOf("nightly", 1000));
        expect(await redis.hExists(hash(), id)).to.equal(false);
      });
    }

    it("a redrive clears what the dead letter held of it, and brings its attributes back into the target", async () => {
      const [id] = await sendScheduled(1);
      const message = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
      await new DeadLetterMover(internals()).move("q", "dlq", message, why);
      // Left behind by hand on both sides: an old client's, or a crash's, leftovers.
      await redis.hSet(hash("dlq"), `${id}:at`, attributesOf("nightly", 1));
      await redis.hSet(hash(), `${id}:at`, attributesOf("stale", 1));
      expect(await rsmq.redriveAsync({ from: "dlq" })).to.equal(1);
      expect(await atFields("dlq")).to.deep.equal([]);
      // The dead letter's attributes, not a leftover: they travel with the message.
      expect(await atFields()).to.deep.equal([`${id}:at`]);
      expect(await redis.hGet(hash(), `${id}:at`)).to.equal(attributesOf("nightly", 1));
      expect(asMessage(await rsmq.receiveMessageAsync({ qname: "q" })).id).to.equal(id);
    });
  });

  describe("leftovers", () => {
    it("a receive on an empty queue sweeps orphan attributes", async () => {
      const orphan = `${idSentAt(Date.now() - 60_000)}:at`;
      await redis.hSet(hash(), orphan, attributesOf("nightly", 1));
      expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
      expect(await atFields()).to.deep.equal([]);
    });

    it("the doctor reports a leftover :at as a field without its message, and fix removes it", async () => {
      const orphan = `${idSentAt(Date.now() - 60_000)}:at`;
      await redis.hSet(hash(), orphan, attributesOf("nightly", 1));
      const kept = (await sendScheduled(1))[0];
      const report = await rsmq.doctorAsync({ qnames: ["q"] });
      expect(report.findings.map(({ kind, found }) => [kind, found])).to.deep.equal([["fieldWithoutMessage", 1]]);
      const fixed = await rsmq.doctorAsync({ qnames: ["q"], fix: true });
      expect(fixed.findings.map(({ kind, found, fixed: done }) => [kind, found, done])).to.deep.equal([["fieldWithoutMessage", 1, 1]]);
      expect(await atFields()).to.deep.equal([`${kept}:at`]);
    });

    it("the doctor's repair of a member without its body removes the member's :at with its other fields", async () => {
      const id = idSentAt((await serverNowMs(redis)) - 60_000);
      await redis.zAdd(keysOf(ns, "q").messages, { score: 1, value: id });
      await redis.hSet(hash(), { [`${id}:rc`]: "1", [`${id}:at`]: attributesOf("nightly", 1) });
      await rsmq.doctorAsync({ qnames: ["q"], fix: true });
      expect(await redis.zCard(keysOf(ns, "q").messages)).to.equal(0);
      expect((await redis.hKeys(hash())).filter((field) => field.startsWith(id))).to.deep.equal([]);
    });

    describe("beside rsmq 0.12.4", () => {
      let old: Rsmq;
      beforeEach(function () {
        singleServerOnly(this, "rsmq 0.12.4 talks to one server");
        old = openOldRsmq(ns);
      });
      afterEach(async () => {
        await old?.quitAsync();
      });

      it("an rsmq 0.12.4 delete leaves :at; one receive on the empty queue leaves none", async () => {
        const ids = await sendScheduled(2);
        for (const id of ids) await old.deleteMessageAsync({ qname: "q", id });
        expect((await atFields()).sort()).to.deep.equal(ids.map((id) => `${id}:at`).sort());
        expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
        expect(await atFields()).to.deep.equal([]);
      });

      it("an rsmq 0.12.4 receive gets the message as if it had no attributes", async () => {
        const [id] = await sendScheduled(1);
        const message = asMessage(await old.receiveMessageAsync({ qname: "q" }));
        expect(message.id).to.equal(id);
        expect(Object.keys(message).sort()).to.deep.equal(["fr", "id", "message", "rc", "sent"]);
      });
    });
  });
});
