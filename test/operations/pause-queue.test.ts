/**
 * pauseQueue and resumeQueue, by the data they leave (the `paused` field and the scores, the
 * contract of issue 38's interfaces) and by what they tell: a soft pause is a flag, `until` ends
 * it on the server's clock, a hard pause shifts every score by HARD_PAUSE_OFFSET_MS in chunks and
 * the resume restores each exactly, visibility changes under a hard pause carry the offset, a
 * pauser or resumer that dies between chunks is made good by the next call, the resume publishes
 * a control wake on the queue's wake channel and to this process's consumers, and attributes
 * report all of it.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { pauseQueue, pauseScores } from "../../lib/operations/pause-queue";
import { resumeQueue } from "../../lib/operations/resume-queue";
import { hideMessage } from "../../lib/operations/hide-message";
import { HARD_PAUSE_OFFSET_MS, SHIFTED_FROM } from "../../lib/operations/queue-fields";
import { isControlWake } from "../../lib/operations/receive-block";
import { onQueueActivity } from "../../lib/wakes/wake-hub";
import { rejectionOf } from "../support/old-rsmq";
import { seedMessages } from "../support/seed-queue";
import { serverNowMs } from "../support/inspect";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { Cleanup, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

/** The queue's members with their scores, by member. */
async function scores(client: RedisClientType, key: string): Promise<Map<string, number>> {
  const entries = await client.zRangeWithScores(key, 0, -1);
  return new Map(entries.map(({ value, score }) => [value, score]));
}

describe("pauseQueue and resumeQueue", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  const cleanup = new Cleanup();
  const paused = async (qname = "q"): Promise<string | undefined> => (await client.hGet(keysOf(ns, qname).hash, "paused")) ?? undefined;

  beforeEach(async () => {
    ns = uniqueNs("pause");
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    client = await plainClient();
    cleanup.add(() => client.quit());
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => cleanup.run());

  it("a soft pause is a flag: since, no until, kind s; a second pause keeps its since; resume removes it", async () => {
    const before = await serverNowMs(client);
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    const score = await client.zScore(keysOf(ns, "q").messages, id);
    expect(await rsmq.pauseQueueAsync({ qname: "q" })).to.equal(1);
    const field = await paused();
    const [since, until, kind] = (field ?? "").split(":");
    expect(Number(since)).to.be.within(before, await serverNowMs(client));
    expect([until, kind]).to.deep.equal(["", "s"]);
    expect(await client.zScore(keysOf(ns, "q").messages, id), "a soft pause moves no score").to.equal(score);
    const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
    expect(attributes.paused).to.deep.equal({ since: Number(since), hard: false });

    const untilMs = Date.now() + 600_000;
    expect(await rsmq.pauseQueueAsync({ qname: "q", until: new Date(untilMs) })).to.equal(1);
    expect(await paused()).to.equal(`${since}:${untilMs}:s`);
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).paused).to.deep.equal({
      since: Number(since),
      until: untilMs,
      hard: false,
    });

    expect(await rsmq.resumeQueueAsync({ qname: "q" })).to.equal(1);
    expect(await paused()).to.equal(undefined);
    expect(await rsmq.getQueueAttributesAsync({ qname: "q" })).to.not.have.property("paused");
    expect(await rsmq.resumeQueueAsync({ qname: "q" }), "not paused").to.equal(0);
    expect(await new Promise((resolve, reject) => rsmq.resumeQueue({ qname: "q" }, (e, r) => (e ? reject(e) : resolve(r))))).to.equal(0);
  });

  it("an until that passed reads as not paused; resume then answers 0 and removes the field", async () => {
    const now = await serverNowMs(client);
    await client.hSet(keysOf(ns, "q").hash, "paused", `${now - 5000}:${now - 1}:s`);
    expect(await rsmq.getQueueAttributesAsync({ qname: "q" })).to.not.have.property("paused");
    // A new pause of an expired one starts afresh.
    await rsmq.pauseQueueAsync({ qname: "q" });
    expect(Number((await paused())!.split(":")[0])).to.be.at.least(now);
    await client.hSet(keysOf(ns, "q").hash, "paused", `${now - 5000}:${now - 1}:s`);
    expect(await rsmq.resumeQueueAsync({ qname: "q" })).to.equal(0);
    expect(await paused()).to.equal(undefined);
  });

  it("a hard pause shifts every score by the offset in chunks; the resume restores each exactly", async () => {
    const keys = keysOf(ns, "q");
    await seedMessages(client, keys, 2500);
    const inFlight = await rsmq.sendMessageAsync({ qname: "q", message: "late", delay: 60 });
    const before = await scores(client, keys.messages);
    expect(await rsmq.pauseQueueAsync({ qname: "q", hard: true })).to.equal(1);
    expect((await paused())!.endsWith("::h")).to.equal(true);
    const shifted = await scores(client, keys.messages);
    expect(shifted.size).to.equal(before.size);
    for (const [id, score] of before) expect(shifted.get(id), id).to.equal(score + HARD_PAUSE_OFFSET_MS);
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).paused).to.include({ hard: true });
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).hiddenmsgs, "every message hidden").to.equal(2501);

    // A soft pause of a hard-paused queue leaves it hard and moves nothing again.
    await rsmq.pauseQueueAsync({ qname: "q" });
    expect((await paused())!.endsWith("::h")).to.equal(true);
    expect(await scores(client, keys.messages)).to.deep.equal(shifted);
    const refused = await rejectionOf(rsmq.pauseQueueAsync({ qname: "q", until: Date.now() + 60_000 }));
    expect(refused.name).to.equal("invalidValue");
    expect((await paused())!.endsWith("::h"), "nothing written").to.equal(true);

    expect(await rsmq.resumeQueueAsync({ qname: "q" })).to.equal(1);
    expect(await paused()).to.equal(undefined);
    expect(await scores(client, keys.messages)).to.deep.equal(before);
    expect(before.get(inFlight)).to.be.below(SHIFTED_FROM);
  });

  it("under a hard pause changeMessageVisibility(ies) and a Worker's hide write shifted scores, which the resume restores", async () => {
    const keys = keysOf(ns, "q");
    const [a, b, c] = await Promise.all(["a", "b", "c"].map((message) => rsmq.sendMessageAsync({ qname: "q", message })));
    await rsmq.pauseQueueAsync({ qname: "q", hard: true });
    const from = await serverNowMs(client);
    expect(await rsmq.changeMessageVisibilityAsync({ qname: "q", id: a, vt: 100 })).to.equal(1);
    expect(await rsmq.changeMessagesVisibilityAsync({ qname: "q", ids: [b], vt: 200 })).to.deep.equal([1]);
    expect(await internalsOf(rsmq).run(() => hideMessage(internalsOf(rsmq).layout, "q", c, 300_000))).to.equal(1);
    const to = await serverNowMs(client);
    const shifted = await scores(client, keys.messages);
    expect(shifted.get(a)! - HARD_PAUSE_OFFSET_MS).to.be.within(from + 100_000, to + 100_000);
    expect(shifted.get(b)! - HARD_PAUSE_OFFSET_MS).to.be.within(from + 200_000, to + 200_000);
    expect(shifted.get(c)! - HARD_PAUSE_OFFSET_MS).to.be.within(from + 300_000, to + 300_000);
    await rsmq.resumeQueueAsync({ qname: "q" });
    const restored = await scores(client, keys.messages);
    for (const id of [a, b, c]) expect(restored.get(id)).to.equal(shifted.get(id)! - HARD_PAUSE_OFFSET_MS);
    // Not paused: a new change writes a plain score.
    await rsmq.changeMessageVisibilityAsync({ qname: "q", id: a, vt: 1 });
    expect(await client.zScore(keys.messages, a)).to.be.below(SHIFTED_FROM);
  });

  it("a pauser that died mid-shift: the next pause, soft or hard, finishes the shift", async () => {
    const keys = keysOf(ns, "q");
    await seedMessages(client, keys, 2500);
    const before = await scores(client, keys.messages);
    const internals = internalsOf(rsmq);
    expect(await internals.run(() => pauseQueue(internals.layout, "q", undefined, true))).to.equal("h");
    expect(await internals.run(() => pauseScores(internals.layout, "q", "shift"))).to.deep.equal({
      moved: 1000,
      done: false,
      wake: undefined,
    });
    expect(await client.zCount(keys.messages, SHIFTED_FROM, "+inf"), "one chunk shifted, then the client died").to.equal(1000);
    await rsmq.pauseQueueAsync({ qname: "q" });
    expect(await client.zCount(keys.messages, SHIFTED_FROM, "+inf")).to.equal(2500);
    expect(await rsmq.resumeQueueAsync({ qname: "q" })).to.equal(1);
    expect(await scores(client, keys.messages)).to.deep.equal(before);
  });

  it("a resumer that died mid-restore: the queue is not paused, and the next resume (or pause) takes over", async () => {
    const keys = keysOf(ns, "q");
    await seedMessages(client, keys, 3500);
    const before = await scores(client, keys.messages);
    await rsmq.pauseQueueAsync({ qname: "q", hard: true });
    const internals = internalsOf(rsmq);
    // The resume script restores the first chunk itself, then the client died.
    const start = await internals.run(() => resumeQueue(internals.layout, "q"));
    expect(start.state).to.equal(2);
    expect(isControlWake(start.wake)).to.equal(true);
    expect((await paused())!.endsWith("::r")).to.equal(true);
    expect(await client.zCount(keys.messages, SHIFTED_FROM, "+inf")).to.equal(2500);
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).paused).to.include({ hard: true, restoring: true });

    // A pause now makes it hard again and shifts back what was restored.
    await rsmq.pauseQueueAsync({ qname: "q" });
    expect((await paused())!.endsWith("::h")).to.equal(true);
    expect(await client.zCount(keys.messages, SHIFTED_FROM, "+inf")).to.equal(3500);

    await internals.run(() => resumeQueue(internals.layout, "q"));
    expect(await rsmq.resumeQueueAsync({ qname: "q" }), "a pending restore counts as paused").to.equal(1);
    expect(await paused()).to.equal(undefined);
    expect(await scores(client, keys.messages)).to.deep.equal(before);
  });

  it("resume wakes this process's consumers and publishes the same control wake on the queue's wake channel", async () => {
    const heard: string[] = [];
    const inProcess: Array<string | undefined> = [];
    const unsubscribe = await internalsOf(rsmq)
      .realtimeWakes()
      .subscribe(keysOf(ns, "q").wakeChannel, (text) => heard.push(String(text)));
    cleanup.add(unsubscribe);
    const stop = onQueueActivity(ns, "q", (text) => inProcess.push(text));
    cleanup.add(async () => stop());

    await rsmq.pauseQueueAsync({ qname: "q" });
    expect(inProcess, "a pause wakes nobody").to.deep.equal([]);
    const from = await serverNowMs(client);
    await rsmq.resumeQueueAsync({ qname: "q" });
    await waitFor(() => heard.length === 1, "the wake on the channel");
    expect(inProcess).to.deep.equal(heard);
    const [, ms] = heard[0].split(":");
    expect(heard[0].startsWith("~resume:")).to.equal(true);
    expect(Number(ms)).to.be.within(from, await serverNowMs(client));
    expect(await rsmq.resumeQueueAsync({ qname: "q" })).to.equal(0);
    expect(inProcess.length, "a resume of a queue not paused wakes nobody").to.equal(1);
  });

  it("rejects queueNotFound for a missing queue, writing nothing", async () => {
    for (const call of [
      () => rsmq.pauseQueueAsync({ qname: "missing" }),
      () => rsmq.pauseQueueAsync({ qname: "missing", hard: true }),
      () => rsmq.resumeQueueAsync({ qname: "missing" }),
    ]) {
      expect((await rejectionOf(call())).name).to.equal("queueNotFound");
    }
    expect(await client.exists(keysOf(ns, "missing").hash)).to.equal(0);
  });
});
