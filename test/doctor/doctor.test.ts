/**
 * The doctor (lib/doctor/) against real Redis: each kind of thing out of place planted as rsmq
 * 0.12.4 leaves it (its real delete and receive on one server; on a cluster, which it cannot
 * reach, the same writes it makes), found with exact counts by a run that writes nothing,
 * repaired by a fix that leaves live messages and settings as they were, and a fix under load
 * (a producer and a Worker running) that loses and duplicates nothing.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { internalsOf } from "../../lib/internals";
import { sendMessage } from "../../lib/operations/send-message";
import { createQueue } from "../../lib/operations/create-queue";
import { FindingTally } from "../../lib/doctor/finding-tally";
import { handleRegistryProblems } from "../../lib/doctor/registry-repair";
import type { DoctorPort } from "../../lib/doctor/doctor-port";
import { doctorPortOf } from "../../lib/doctor/doctor";
import { openOldRsmq } from "../support/old-rsmq";
import type { Rsmq } from "../support/old-rsmq";
import { deadLetterOne } from "../support/retry";
import { connectionOptions, keysOf, onCluster, plainClient, singleServerOnly, uniqueNs } from "../support/server";
import { exactState } from "../support/state";
import { serverNowMs } from "../support/inspect";
import { waitFor } from "../support/worker";
import { fieldsOf, plantMessages } from "../support/retention";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const CARRIER = JSON.stringify({ traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" });

/** An id as rsmq lays it out, sent long ago (its first 10 characters), so it can never be a live message's. */
function oldId(n: number): string {
  return `0000000001${String(n).padStart(22, "a")}`;
}

/** The counts of a report by kind: found, fixed, left. */
function countsOf(report: RedisSMQ.DoctorReport): Record<string, [number, number, number]> {
  return Object.fromEntries(report.findings.map(({ kind, found, fixed, left }) => [kind, [found, fixed, left]]));
}

describe("doctor: what old clients leave behind, found and repaired", function () {
  this.timeout(30_000);
  let ns: string;
  let rsmq: RedisSMQ;
  let redis: RedisClientType;
  let old: Rsmq | undefined;

  beforeEach(async () => {
    ns = uniqueNs("doc");
    rsmq = new RedisSMQ(connectionOptions(ns));
    redis = await plainClient();
    old = undefined;
  });
  afterEach(async () => {
    await old?.quitAsync();
    await rsmq.quitAsync();
    await redis.quit();
  });

  const internals = () => internalsOf(rsmq);
  /** rsmq 0.12.4, opened on first use; it talks to one server only, so on a cluster its writes are made as it makes them. */
  const oldRsmq = (): Rsmq | undefined => (onCluster() ? undefined : (old ??= openOldRsmq(ns)));
  const sendCarried = async (qname: string, message: string, delay?: number) =>
    (await internals().run(() => sendMessage(internals().layout, "none", { qname, message, delay }, CARRIER))).id;

  /** rsmq 0.12.4's deleteMessage: ZREM, and HDEL of `<id>`, `<id>:rc`, `<id>:fr` only. */
  async function deleteAsRsmq(qname: string, id: string): Promise<void> {
    const old = oldRsmq();
    if (old) {
      expect(await old.deleteMessageAsync({ qname, id })).to.equal(1);
      return;
    }
    const keys = keysOf(ns, qname);
    await redis.zRem(keys.messages, id);
    await redis.hDel(keys.hash, [id, `${id}:rc`, `${id}:fr`]);
  }

  /** rsmq 0.12.4's receive of the first visible member: re-scored, counted, `:rc` and `:fr` written, the body read (null when absent). */
  async function receiveAsRsmq(qname: string): Promise<{ id: string; message: string | null }> {
    const old = oldRsmq();
    if (old) {
      const got = (await old.receiveMessageAsync({ qname })) as { id: string; message: string | null };
      return { id: got.id, message: got.message };
    }
    const keys = keysOf(ns, qname);
    const now = await serverNowMs(redis);
    const [id] = await redis.zRangeByScore(keys.messages, "-inf", now, { LIMIT: { offset: 0, count: 1 } });
    await redis.zAdd(keys.messages, { score: now + 30_000, value: id });
    await redis.hIncrBy(keys.hash, "totalrecv", 1);
    const message = await redis.hGet(keys.hash, id);
    if ((await redis.hIncrBy(keys.hash, `${id}:rc`, 1)) === 1) await redis.hSet(keys.hash, `${id}:fr`, String(now));
    return { id, message: message ?? null };
  }

  interface Planted {
    live: string[];
    memberWithoutBody: string;
    bodyWithoutMember: string;
  }

  /** Every kind of thing out of place, beside live messages (see EXPECTED for the counts). */
  async function plantEverything(): Promise<Planted> {
    const q = keysOf(ns, "q");
    await rsmq.createQueueAsync({ qname: "q" });
    // A dead-letter move leaves `<id>:dl` beside the message in q-dlq; rsmq 0.12.4's delete keeps it.
    const deadId = await deadLetterOne(rsmq, "q", "q-dlq", "dead");
    await deleteAsRsmq("q-dlq", deadId);
    // Live: one received once (its :rc and :fr), one carrying a trace context, one delayed.
    const received = await rsmq.sendMessageAsync({ qname: "q", message: "received" });
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.have.property("id", received);
    const carried = await sendCarried("q", "carried");
    const delayed = await rsmq.sendMessageAsync({ qname: "q", message: "delayed", delay: 600 });
    // Deleted by rsmq 0.12.4: each leaves its `<id>:tp`.
    for (const message of ["gone 1", "gone 2"]) await deleteAsRsmq("q", await sendCarried("q", message));
    // A member without a body: rsmq 0.12.4 receives it as message null, and writes its :rc and :fr.
    const memberWithoutBody = oldId(1);
    await redis.zAdd(q.messages, { score: 1, value: memberWithoutBody });
    expect(await receiveAsRsmq("q")).to.deep.equal({ id: memberWithoutBody, message: null });
    // A field of a kind rsmq-next may add later, a body without a member, a field nobody knows, a bad retention.
    const bodyWithoutMember = oldId(3);
    await redis.hSet(q.hash, { [`${oldId(2)}:zz`]: "later", [bodyWithoutMember]: "lost body", color: "blue", retention: "1.5" });
    // Queues: one not listed, one without delay, one with a vt rsmq cannot read and itself as expireTo.
    for (const qname of ["unlisted", "nodelay", "badvt"]) await rsmq.createQueueAsync({ qname });
    await redis.sRem(q.registry, "unlisted");
    await redis.hDel(keysOf(ns, "nodelay").hash, "delay");
    await redis.hSet(keysOf(ns, "badvt").hash, { vt: "abc", expireto: "badvt" });
    // A listed name with no queue, and a queue hash with no settings (a send racing a deleteQueue).
    await redis.sAdd(q.registry, "ghost");
    await redis.hSet(keysOf(ns, "leftover").hash, { totalsent: "1", [oldId(4)]: "sent as the queue went" });
    return { live: [received, carried, delayed], memberWithoutBody, bodyWithoutMember };
  }

  /** found, fixed (without fix: 0), left for every kind plantEverything makes. */
  const EXPECTED_FOUND: Record<string, number> = {
    fieldWithoutMessage: 6, // two :tp, one :dl (q-dlq), the member's :rc and :fr, one :zz
    memberWithoutBody: 1,
    bodyWithoutMember: 1,
    registryWithoutQueue: 1,
    queueNotInRegistry: 1,
    missingSetting: 1,
    invalidRetention: 1,
    invalidSetting: 2,
    unknownField: 1,
    leftoverHash: 1,
  };
  const REPORT_ONLY = ["invalidSetting", "unknownField", "leftoverHash"];

  /** q's live messages as Redis holds them: every field they have, and their scores; and the queues' settings. */
  async function liveState(live: string[]): Promise<unknown> {
    const q = keysOf(ns, "q");
    const hash = await redis.hGetAll(q.hash);
    const fields = Object.keys(hash)
      .filter(
        (field) =>
          live.some((id) => field.startsWith(id)) ||
          ["vt", "delay", "maxsize", "totalsent", "totalrecv", "created", "modified"].includes(field),
      )
      .sort();
    const scores = await Promise.all(live.map((id) => redis.zScore(q.messages, id)));
    // The other queues' settings and counters (their fields without a colon: no message's).
    const settings = await Promise.all(
      ["q-dlq", "unlisted", "badvt"].map(async (qname) =>
        Object.entries(await redis.hGetAll(keysOf(ns, qname).hash)).filter(([field]) => !field.includes(":")),
      ),
    );
    return { fields: fields.map((field) => [field, hash[field]]), scores, settings };
  }

  it("finds each kind with exact counts, and a run without fix writes nothing", async () => {
    await plantEverything();
    const before = await exactState(redis, ns);
    const report = await rsmq.doctorAsync();
    expect(await exactState(redis, ns)).to.deep.equal(before);
    expect(countsOf(report)).to.deep.equal(Object.fromEntries(Object.entries(EXPECTED_FOUND).map(([kind, n]) => [kind, [n, 0, n]])));
    expect(report).to.deep.include({ ns, fix: false, queues: 5, left: 16 });
    const examples = (kind: string) => report.findings.find((finding) => finding.kind === kind)!.examples;
    expect(examples("registryWithoutQueue")).to.deep.equal([{ qname: "ghost", item: "ghost" }]);
    expect(examples("invalidSetting").map(({ item }) => item)).to.deep.equal(["vt", "expireto"]);
    expect(
      examples("fieldWithoutMessage")
        .map(({ item }) => item.slice(33))
        .sort(),
    ).to.deep.equal(["fr", "rc", "tp", "tp", "zz"]); // the first five found: q's (q-dlq's :dl comes after them)
    // Only the queues asked for: q's own findings.
    const onlyQ = await rsmq.doctorAsync({ qnames: ["q"], chunk: 2 });
    expect(countsOf(onlyQ)).to.deep.equal({
      fieldWithoutMessage: [5, 0, 5],
      memberWithoutBody: [1, 0, 1],
      bodyWithoutMember: [1, 0, 1],
      invalidRetention: [1, 0, 1],
      unknownField: [1, 0, 1],
    });
    expect(await exactState(redis, ns)).to.deep.equal(before);
  });

  it("fix repairs every repairable kind, reports the rest, and leaves live messages and settings as they were", async () => {
    const planted = await plantEverything();
    const live = await liveState(planted.live);
    const fixed = await rsmq.doctorAsync({ fix: true, chunk: 3 });
    expect(countsOf(fixed)).to.deep.equal(
      Object.fromEntries(Object.entries(EXPECTED_FOUND).map(([kind, n]) => [kind, REPORT_ONLY.includes(kind) ? [n, 0, n] : [n, n, 0]])),
    );
    expect(fixed.left).to.equal(4);
    expect(await liveState(planted.live)).to.deep.equal(live);

    const q = keysOf(ns, "q");
    const fields = await redis.hKeys(q.hash);
    expect(fields.filter((field) => field.includes(":")).sort()).to.deep.equal(
      [`${planted.live[0]}:fr`, `${planted.live[0]}:rc`, `${planted.live[1]}:tp`].sort(),
    );
    expect(fields).to.include.members(["color", planted.bodyWithoutMember]).and.not.include("retention");
    expect(await redis.zScore(q.messages, planted.memberWithoutBody)).to.equal(null);
    // The body without a member is a message again, visible now (the load test below has a Worker receive such ones).
    expect(await redis.zScore(q.messages, planted.bodyWithoutMember)).to.be.at.most(await serverNowMs(redis));
    expect(await redis.hGet(keysOf(ns, "nodelay").hash, "delay")).to.equal("0");
    expect((await rsmq.listQueuesAsync()).sort()).to.deep.equal(["badvt", "nodelay", "q", "q-dlq", "unlisted"]);

    const after = await rsmq.doctorAsync();
    expect(countsOf(after)).to.deep.equal({ invalidSetting: [2, 0, 2], unknownField: [1, 0, 1], leftoverHash: [1, 0, 1] });
  });

  it("fix under load: a producer and a Worker running lose, duplicate and strip nothing", async () => {
    const qname = "load";
    const keys = keysOf(ns, qname);
    await rsmq.createQueueAsync({ qname });
    // Parked messages stay in the queue through it all, each with its trace context.
    const parked = [];
    for (let i = 0; i < 5; i++) parked.push(await sendCarried(qname, `parked ${i}`, 3600));
    const parkedBefore = await Promise.all(
      parked.map(async (id) => [await redis.hmGet(keys.hash, [id, `${id}:tp`]), await redis.zScore(keys.messages, id)]),
    );
    const orphans: Record<string, string> = {};
    for (let i = 0; i < 300; i++) orphans[`${oldId(i)}:${i % 2 ? "tp" : "dl"}`] = "orphan";
    const lost = new Map<string, string>();
    for (let i = 300; i < 320; i++) lost.set(oldId(i), `lost ${i}`);
    for (const [id, body] of lost) orphans[id] = body;
    await redis.hSet(keys.hash, orphans);

    const handled = new Map<string, number>();
    const bodies = new Map<string, string>();
    const worker = new RedisSMQ.Worker(rsmq, {
      qname,
      concurrency: 4,
      handler: async (message) => {
        handled.set(message.id, (handled.get(message.id) ?? 0) + 1);
        bodies.set(message.id, message.message);
        await Promise.resolve();
      },
    });
    worker.start();
    const sent = new Map<string, string>();
    let producing = true;
    const producer = (async () => {
      for (let i = 0; i < 200; i++) {
        const body = `m${i}`;
        sent.set(i % 3 ? await rsmq.sendMessageAsync({ qname, message: body }) : await sendCarried(qname, body), body);
      }
      producing = false;
    })();
    let fixes = 0;
    let relisted = 0;
    while (producing || fixes < 2) {
      const report = await rsmq.doctorAsync({ fix: true, qnames: [qname], chunk: 10 });
      relisted += report.findings.find(({ kind }) => kind === "bodyWithoutMember")?.fixed ?? 0;
      fixes += 1;
    }
    // Only the doctor puts a body back in the set: each of the 20 exactly once.
    expect(relisted).to.equal(lost.size);
    await producer;
    await waitFor(() => handled.size === sent.size + lost.size, `${sent.size + lost.size} messages handled, ${handled.size} so far`);
    await worker.stop();

    for (const [id, body] of sent) expect({ id, times: handled.get(id), body: bodies.get(id) }).to.deep.equal({ id, times: 1, body });
    for (const [id, body] of lost) expect({ id, times: handled.get(id), body: bodies.get(id) }).to.deep.equal({ id, times: 1, body });
    expect(handled.size).to.equal(sent.size + lost.size);
    const parkedAfter = await Promise.all(
      parked.map(async (id) => [await redis.hmGet(keys.hash, [id, `${id}:tp`]), await redis.zScore(keys.messages, id)]),
    );
    expect(parkedAfter).to.deep.equal(parkedBefore);
    const report = await rsmq.doctorAsync({ qnames: [qname] });
    expect(report.findings).to.deep.equal([]);
    expect(await redis.zCard(keys.messages)).to.equal(parked.length);
  });

  it("fix sweeps expired messages no receive meets: in flight, delayed, in a queue nobody reads", async () => {
    await rsmq.createQueueAsync({ qname: "kept" });
    await rsmq.createQueueAsync({ qname: "unread", retention: 3600 });
    const hidden = await plantMessages(redis, ns, "unread", { count: 3, ageSeconds: 7200, dueInMs: 600_000 });
    const due = await plantMessages(redis, ns, "unread", { count: 2, ageSeconds: 7200, prefix: "due" });
    const live = await rsmq.sendMessageAsync({ qname: "unread", message: "live", delay: 600 });
    await plantMessages(redis, ns, "kept", { count: 2, ageSeconds: 7200 });

    // The read-only run leaves them: only a fix sweeps.
    const looked = await rsmq.doctorAsync();
    expect(looked.findings.map(({ kind }) => kind)).to.not.include("expired");
    expect(await redis.zCard(keysOf(ns, "unread").messages)).to.equal(6);

    const report = await rsmq.doctorAsync({ fix: true });
    expect(countsOf(report).expired).to.deep.equal([5, 5, 0]);
    expect(
      await fieldsOf(
        redis,
        ns,
        "unread",
        [...hidden, ...due].map(({ id }) => id),
      ),
    ).to.deep.equal([]);
    expect(await redis.zRange(keysOf(ns, "unread").messages, 0, -1)).to.deep.equal([live]);
    expect(await rsmq.getQueueAttributesAsync({ qname: "unread" })).to.include({ totalexpired: 5, msgs: 1 });
    // A queue without a retention keeps its old messages.
    expect(await redis.zCard(keysOf(ns, "kept").messages)).to.equal(2);
  });

  it("bad options are refused before any round trip", async () => {
    const refused = async (options: unknown) =>
      (await rsmq.doctorAsync(options as RedisSMQ.DoctorOptions).catch((error: Error) => error)) as Error;
    expect(String(await refused({ chunk: 0 }))).to.equal("invalidValue: chunk must be an integer between 1 and 1000");
    expect(String(await refused({ fix: "yes" }))).to.equal("invalidValue: fix must be true or false");
    expect(String(await refused({ qnames: "q" }))).to.equal("invalidValue: qnames must be an array of queue names");
    expect((await refused({ qnames: ["bad name"] })).name).to.equal("invalidFormat");
  });

  it("the callback twin hands over the same report, with options or without", async () => {
    await rsmq.createQueueAsync({ qname: "q" });
    await redis.hSet(keysOf(ns, "q").hash, `${oldId(1)}:tp`, "orphan");
    const viaCallback = (...options: [RedisSMQ.DoctorOptions] | []) =>
      new Promise<RedisSMQ.DoctorReport>((resolve, reject) => {
        const callback = (error: unknown, result: RedisSMQ.DoctorReport) => (error ? reject(error as Error) : resolve(result));
        if (options.length === 0) rsmq.doctor(callback);
        else rsmq.doctor(options[0], callback);
      });
    expect(countsOf(await viaCallback())).to.deep.equal({ fieldWithoutMessage: [1, 0, 1] });
    expect(countsOf(await viaCallback({ fix: true }))).to.deep.equal({ fieldWithoutMessage: [1, 1, 0] });
    expect((await rsmq.doctor()).findings).to.deep.equal([]);
  });

  describe("the registry in another slot (Redis Cluster)", () => {
    beforeEach(function () {
      if (!onCluster()) {
        this.test!.title += " (cluster only: on one server createQueue lists and writes in one script)";
        this.skip();
      }
    });

    /** The instance's own doctor port (private on the class). */
    const port = (): DoctorPort => doctorPortOf(internalsOf(rsmq));

    it("a queue being created (listed, hash not written yet) is not unlisted; a name with no queue is", async () => {
      const registry = keysOf(ns, "q").registry;
      await redis.sAdd(registry, ["creating", "ghost"]);
      const seenAt = Date.now();
      const tally = new FindingTally();
      const settled = handleRegistryProblems(
        port(),
        tally,
        ["creating", "ghost"].map((qname) => ({ kind: "registryWithoutQueue" as const, qname, seenAt })),
        true,
      );
      // createQueue's second round trip lands within the grace period.
      const created = createQueue(internals().layout, { qname: "creating" });
      await internals().run(() => ({ ...created, before: undefined }));
      await settled;
      expect((await redis.sMembers(registry)).sort()).to.deep.equal(["creating"]);
      expect(tally.findings()).to.deep.equal([
        {
          kind: "registryWithoutQueue",
          found: 2,
          fixed: 1,
          left: 0,
          repairable: true,
          examples: [
            { qname: "creating", item: "creating" },
            { qname: "ghost", item: "ghost" },
          ],
        },
      ]);
    });
  });

  it("an rsmq 0.12.4 client reads the repaired queues", async function () {
    singleServerOnly(this, "rsmq 0.12.4 talks to one server");
    await plantEverything();
    await rsmq.doctorAsync({ fix: true });
    const attributes = await oldRsmq()!.getQueueAttributesAsync({ qname: "nodelay" });
    expect(attributes).to.include({ vt: 30, delay: 0, maxsize: 65536 });
    const got = (await oldRsmq()!.receiveMessageAsync({ qname: "q" })) as { message: string };
    expect(got.message).to.be.a("string");
  });
});
