/**
 * RedisSMQ.Scheduler in this process against a real Redis: what it fires and tells, the wakes it
 * hears, a schedule found two weeks behind (each catch-up policy), `overlap: "skip"`, and an rsmq
 * 0.12.4 consumer taking what it sent. What several processes do together: fleet.test.ts.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { openOldRsmq, asMessage } from "../support/old-rsmq";
import { scheduledMessages, duplicateSlots } from "../support/schedule-fleet";
import { serverNowMs, subscribersOf } from "../support/inspect";
import { keysOf, onCluster, plainClient, connectionOptions } from "../support/server";
import { freshQueueEachTest, serverTimePassed, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";
import type { RedisClientType } from "redis";

runsOn("single", "cluster", "client");

type Scheduler = RedisSMQ.Scheduler;
type Fired = RedisSMQ.SchedulerEvents["fired"][0];

const DAY_MS = 86_400_000;

describe("schedules: the Scheduler", function () {
  this.timeout(20_000);
  const queue = freshQueueEachTest();
  let client: RedisClientType;
  const schedulers: Scheduler[] = [];

  beforeEach(async () => {
    client = await plainClient();
  });
  afterEach(async () => {
    await Promise.all(schedulers.splice(0).map((scheduler) => scheduler.stop()));
    await client.quit();
  });

  /** A started Scheduler, stopped after the test; its `fired` events and errors recorded. */
  function startScheduler(rsmq: RedisSMQ, qnames: string[], capMs?: number): { scheduler: Scheduler; fired: Fired[]; errors: Error[] } {
    const scheduler = new RedisSMQ.Scheduler(rsmq, { qnames, capMs });
    const fired: Fired[] = [];
    const errors: Error[] = [];
    scheduler.on("fired", (one) => fired.push(one));
    scheduler.on("error", (error) => errors.push(error));
    schedulers.push(scheduler);
    scheduler.start();
    return { scheduler, fired, errors };
  }

  it("checks its options when constructed, before any round trip", () => {
    const { rsmq } = queue;
    const make = (options: unknown) => () => new RedisSMQ.Scheduler(rsmq, options as RedisSMQ.SchedulerOptions);
    expect(make(undefined)).to.throw(TypeError, /scheduler options/);
    expect(make({ qnames: [] })).to.throw(TypeError, /`qnames`/);
    expect(make({ qnames: "q" })).to.throw(TypeError, /`qnames`/);
    expect(make({ qnames: ["no spaces"] })).to.throw(/qnames\[0\]/);
    expect(make({ qnames: ["q"], capMs: 10 })).to.throw(TypeError, /`capMs`/);
    expect(make({ qnames: ["q"], qname: "q" })).to.throw(TypeError, /Unknown scheduler option `qname`/);
    expect(() => new RedisSMQ.Scheduler({} as RedisSMQ, { qnames: ["q"] })).to.throw(TypeError, /RedisSMQ instance/);
  });

  it("fires every slot of an `every: 1000` schedule once, and tells each as `fired` (queue, schedule, slot, id)", async () => {
    const { rsmq, ns } = queue;
    await rsmq.upsertScheduleAsync({ qname: "q", name: "tick", every: 1000, message: "tick" });
    const { fired, errors } = startScheduler(rsmq, ["q"]);
    await waitFor(() => fired.length >= 3, "three slots fired");
    const [info] = await rsmq.listSchedulesAsync({ qname: "q" });
    const stored = await scheduledMessages(client, ns, "q");
    for (const one of fired.slice(0, 3)) {
      expect(one.qname).to.equal("q");
      expect(one.name).to.equal("tick");
      expect((one.slot - info.anchor!) % 1000).to.equal(0);
      expect(stored.find((message) => message.id === one.id)?.slot).to.equal(one.slot);
    }
    expect(duplicateSlots(stored)).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
  });

  it("hears a schedule upserted in this process or in another at once (its cap is 10 min), and stops firing at stop()", async () => {
    const { rsmq, sender } = queue;
    await rsmq.createQueueAsync({ qname: "other" });
    const { scheduler, fired, errors } = startScheduler(rsmq, ["q", "other"], 600_000);
    // Subscribed first, so what fires below was heard, not read when the subscription was confirmed.
    const channel = (qname: string) => keysOf(queue.ns, qname).wakeChannel;
    await waitFor(
      async () => (await subscribersOf(client, channel("q"))) > 0 && (await subscribersOf(client, channel("other"))) > 0,
      "subscribed",
    );
    await sender.upsertScheduleAsync({ qname: "q", name: "remote", every: 60_000, message: "m" });
    await rsmq.upsertScheduleAsync({ qname: "other", name: "local", every: 60_000, message: "m" });
    // The first slot of each is its anchor, the upsert's time: due at once.
    await waitFor(() => fired.length >= 2, "both schedules' first slots fired");
    expect(fired.map((one) => `${one.qname}/${one.name}`).sort()).to.deep.equal(["other/local", "q/remote"]);
    await scheduler.stop();
    await rsmq.upsertScheduleAsync({ qname: "q", name: "after", every: 1000, message: "m" });
    // Its first slot (the upsert's time) and one more pass by.
    await serverTimePassed(client, 1500);
    const [after] = (await rsmq.listSchedulesAsync({ qname: "q" })).filter((info) => info.name === "after");
    expect(after.count).to.equal(0);
    expect(errors).to.deep.equal([]);
  });

  it("quitAsync() stops it, as it stops the instance's Workers", async () => {
    const { ns, rsmq } = queue;
    const own = new RedisSMQ(connectionOptions(ns));
    const { fired, errors } = startScheduler(own, ["q"]);
    await own.quitAsync();
    await rsmq.upsertScheduleAsync({ qname: "q", name: "tick", every: 1000, message: "m" });
    await serverTimePassed(client, 1500);
    expect((await rsmq.listSchedulesAsync({ qname: "q" }))[0].count).to.equal(0);
    expect(fired).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
  });

  describe("down for two weeks with `every: 5000`", () => {
    /**
     * Writes each schedule's stored state as Redis would hold it after two weeks with no firing
     * process: its anchor, since and last slot two weeks back, its next the slot after that. The
     * newest slot is 2.6 s old now, so a read within the next 2.4 s finds it missed, not on time.
     */
    async function twoWeeksBehind(ns: string, qname: string, names: string[]): Promise<void> {
      const key = keysOf(ns, qname).hash;
      const now = await serverNowMs(client);
      const anchor = now - 14 * DAY_MS - 2_600;
      for (const name of names) {
        const stored = JSON.parse((await client.hGet(key, `~sched:${name}`))!) as Record<string, unknown>;
        Object.assign(stored, {
          anchor,
          since: anchor,
          createdAt: anchor,
          updatedAt: anchor,
          last: anchor,
          lastRunAt: anchor,
          next: anchor + 5000,
        });
        await client.hSet(key, `~sched:${name}`, JSON.stringify(stored));
      }
      await client.hSet(key, "schednext", String(anchor + 5000));
    }

    it("`latest` fires 1 at start, `none` 0, `all` its newest 100; every other slot is counted missed", async () => {
      const { rsmq, ns } = queue;
      for (const catchup of ["latest", "none", "all"] as const) {
        await rsmq.upsertScheduleAsync({ qname: "q", name: catchup, every: 5000, message: catchup, catchup });
      }
      await twoWeeksBehind(ns, "q", ["latest", "none", "all"]);
      const { scheduler, errors } = startScheduler(rsmq, ["q"]);
      const slotsBehind = (14 * DAY_MS) / 5000;
      const byName = async () => Object.fromEntries((await rsmq.listSchedulesAsync({ qname: "q" })).map((info) => [info.name, info]));
      await waitFor(async () => Object.values(await byName()).every((info) => info.missed > 0), "the first pass over each");
      await scheduler.stop();
      const infos = await byName();
      const messages = await scheduledMessages(client, ns, "q");
      const sent = (name: string) => messages.filter((message) => message.schedule === name).length;
      expect([sent("latest"), sent("none"), sent("all")]).to.deep.equal([1, 0, 100]);
      expect([infos.latest.count, infos.none.count, infos.all.count]).to.deep.equal([1, 0, 100]);
      expect(infos.latest.missed).to.equal(slotsBehind - 1);
      expect(infos.none.missed).to.equal(slotsBehind);
      // `all` fires only what is within its window (a day), the newest 100 of it.
      expect(infos.all.missed).to.equal(slotsBehind - 100);
      expect(duplicateSlots(messages)).to.deep.equal([]);
      expect(errors).to.deep.equal([]);
    });
  });

  it('`overlap: "skip"`: while the last message is unhandled, slots are skipped and counted; once an rsmq 0.12.4 consumer takes and deletes it, the next slot fires', async function () {
    // rsmq 0.12.4 talks to a single server only.
    if (onCluster()) this.skip();
    const { rsmq, ns } = queue;
    await rsmq.upsertScheduleAsync({ qname: "q", name: "job", every: 1000, message: "job", overlap: "skip" });
    const skipped: number[] = [];
    const { scheduler, errors } = startScheduler(rsmq, ["q"]);
    scheduler.on("skipped", ({ count, reason }) => reason === "overlap" && skipped.push(count));
    const info = async () => (await rsmq.listSchedulesAsync({ qname: "q" }))[0];
    await waitFor(async () => (await info()).overlapped >= 2, "two slots skipped", 10_000);
    expect((await info()).count).to.equal(1);
    expect((await scheduledMessages(client, ns, "q")).length).to.equal(1);

    const old = openOldRsmq(ns);
    try {
      const message = asMessage(await old.receiveMessageAsync({ qname: "q" }));
      expect(message.message).to.equal("job");
      await old.deleteMessageAsync({ qname: "q", id: message.id });
    } finally {
      await old.quitAsync();
    }
    await waitFor(async () => (await info()).count === 2, "the slot after the delete fired");
    await scheduler.stop();
    const overlapped = (await info()).overlapped;
    expect(skipped.reduce((sum, count) => sum + count, 0)).to.equal(overlapped);
    expect(errors).to.deep.equal([]);
  });
});
