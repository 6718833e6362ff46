/**
 * The schedule firer (lib/schedules/schedule-firer.ts): first against a fake store and a fake
 * clock, where what it reads, fires and sleeps can be said exactly; then inside a Worker on a real
 * Redis, where the handler gets the schedule and slot of what it fired.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { ScheduleFirer } from "../../lib/schedules/schedule-firer";
import type { FireOutcome, ScheduleRead, ScheduleStore } from "../../lib/schedules/schedule-firer";
import type { FirePlan } from "../../lib/schedules/fire-plan";
import { parseStoredSchedule } from "../../lib/schedules/stored-schedule";
import type { StoredSchedule } from "../../lib/schedules/stored-schedule";
import { FakeClock, settle } from "../support/fake-clock";
import { held } from "../support/fake-queue";
import { WorkerLog, freshQueueEachTest, serverTimePassed, waitFor } from "../support/worker";
import { keysOf, plainClient } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

/** The server's clock runs this far from the host's: the firer must never mix the two. */
const SERVER_AHEAD_MS = 123_456_789;

/** A stored `every` schedule as the scripts write it (interfaces: the `~sched:<name>` JSON). */
function storedJson(fields: Record<string, unknown>): string {
  return JSON.stringify({
    v: 1,
    tz: "UTC",
    message: "tick",
    priority: 0,
    catchup: "latest",
    catchupWindowMs: 86_400_000,
    overlap: "allow",
    paused: false,
    count: 0,
    missed: 0,
    overlapped: 0,
    next: 0,
    ...fields,
  });
}

/** A store in memory: fires as the script would for one process, counting every call. */
class FakeStore implements ScheduleStore {
  readonly json = new Map<string, Record<string, unknown>>();
  reads = 0;
  readonly fires: Array<{ name: string; plan: FirePlan }> = [];
  /** Replaces the next reads' answers (a failure, a reply held). */
  readonly readReplies: Array<Error | Promise<ScheduleRead | null>> = [];
  /** The status the next fires answer with instead of firing. */
  readonly fireStatuses: Array<FireOutcome["status"]> = [];

  constructor(private readonly clock: FakeClock) {}

  serverNow(): number {
    return this.clock.now() + SERVER_AHEAD_MS;
  }

  define(name: string, fields: Record<string, unknown>): void {
    this.json.set(name, JSON.parse(storedJson(fields)) as Record<string, unknown>);
  }

  read(): Promise<ScheduleRead | null> {
    this.reads += 1;
    const reply = this.readReplies.shift();
    if (reply instanceof Error) return Promise.reject(reply);
    if (reply) return reply;
    return Promise.resolve(this.snapshot());
  }

  snapshot(): ScheduleRead {
    const schedules = [...this.json].map(([name, fields]) => parseStoredSchedule(name, JSON.stringify(fields)));
    return { nowMs: this.serverNow(), schedules };
  }

  fire(stored: StoredSchedule, plan: FirePlan): Promise<FireOutcome> {
    this.fires.push({ name: stored.name, plan });
    const status = this.fireStatuses.shift();
    const fields = this.json.get(stored.name)!;
    // `done`: another process applied the same plan first.
    if (status === "done") {
      if (plan.handledThrough !== null) fields.last = plan.handledThrough;
      fields.next = plan.next;
    }
    if (status !== undefined) return Promise.resolve({ status, next: Number(fields.next), sent: [] });
    const sent = plan.slots.map((slot, index) => ({ slot, id: `id-${stored.name}-${slot}-${index}` }));
    if (plan.handledThrough !== null) fields.last = plan.handledThrough;
    fields.next = plan.next;
    fields.count = Number(fields.count) + sent.length;
    fields.missed = Number(fields.missed) + plan.missed;
    return Promise.resolve({ status: "fired", next: plan.next, sent });
  }
}

describe("schedules: the firer", function () {
  describe("its passes and timer (fake store, fake clock)", () => {
    let clock: FakeClock;
    let store: FakeStore;
    let firer: ScheduleFirer;
    let fired: Array<{ name: string; slot: number; id: string }>;
    let errors: unknown[];

    const make = (capMs?: number): ScheduleFirer =>
      new ScheduleFirer(store, clock, { fired: (one) => fired.push(one), error: (error) => errors.push(error) }, { capMs });

    beforeEach(() => {
      clock = new FakeClock();
      store = new FakeStore(clock);
      fired = [];
      errors = [];
    });
    afterEach(async () => {
      await firer?.stop();
    });

    /** An `every` schedule whose slots are `anchor + k * every`, its next slot settled. */
    function defineEvery(name: string, every: number, nextInMs: number): number {
      const now = store.serverNow();
      const next = now + nextInMs;
      store.define(name, {
        every,
        anchor: next - every,
        createdAt: now - every,
        updatedAt: now - every,
        since: now - every,
        last: next - every,
        next,
      });
      return next;
    }

    it("times its timer on the server's clock: the next slot less the read's server time, whatever the host clock says", async () => {
      const next = defineEvery("a", 10_000, 4_000);
      firer = make();
      void firer.start();
      await settle();
      expect(store.reads).to.equal(1);
      expect(store.fires).to.have.length(0);
      expect(clock.pending.map((sleep) => sleep.ms)).to.deep.equal([4_000]);

      await clock.advance(4_000);
      expect(store.reads).to.equal(2);
      expect(fired.map((one) => one.slot)).to.deep.equal([next]);
      // Then the slot after it, 10 s on.
      expect(clock.pending.map((sleep) => sleep.ms)).to.deep.equal([10_000]);
    });

    it("waits for the earliest next slot of its schedules; a paused one is not fired nor waited for", async () => {
      defineEvery("slow", 60_000, 50_000);
      defineEvery("fast", 5_000, 3_000);
      defineEvery("held", 1_000, 500);
      store.json.get("held")!.paused = true;
      firer = make();
      void firer.start();
      await settle();
      expect(clock.pending.map((sleep) => sleep.ms)).to.deep.equal([3_000]);
      await clock.advance(3_000);
      expect(fired.map((one) => one.name)).to.deep.equal(["fast"]);
    });

    it("a slot another process handled first: nothing reported, the next slot awaited", async () => {
      const next = defineEvery("a", 10_000, 1_000);
      firer = make();
      void firer.start();
      await settle();
      store.fireStatuses.push("done");
      await clock.advance(1_000);
      expect(store.fires.map((fire) => fire.plan.slots)).to.deep.equal([[next]]);
      expect(fired).to.deep.equal([]);
      expect(clock.pending.map((sleep) => sleep.ms)).to.deep.equal([10_000]);
    });

    it("a fire the server finds early (its clock behind the read's): tried again a little later, not at once", async () => {
      const next = defineEvery("a", 10_000, 1_000);
      firer = make();
      void firer.start();
      await settle();
      store.fireStatuses.push("early");
      await clock.advance(1_000);
      expect(store.fires).to.have.length(1);
      expect(clock.pending.map((sleep) => sleep.ms)).to.deep.equal([100]);
      await clock.advance(100);
      expect(store.fires.map((fire) => fire.plan.slots)).to.deep.equal([[next], [next]]);
      expect(fired.map((one) => one.slot)).to.deep.equal([next]);
    });

    it("passes never overlap: refreshes during a pass make one more pass after it", async () => {
      defineEvery("a", 10_000, 5_000);
      const reply = held<ScheduleRead | null>();
      store.readReplies.push(reply.promise);
      firer = make();
      void firer.start();
      await settle();
      firer.refresh();
      firer.refresh();
      firer.noteDue(0);
      await settle();
      expect(store.reads).to.equal(1);
      reply.resolve(store.snapshot());
      await settle();
      expect(store.reads).to.equal(2);
      await settle();
      expect(store.reads).to.equal(2);
      expect(clock.pending).to.have.length(1);
    });

    it("a look's due time re-arms the timer, 0 makes a pass now, none (no active schedule) leaves no timer", async () => {
      defineEvery("a", 60_000, 30_000);
      firer = make();
      void firer.start();
      await settle();
      expect(clock.pending.map((sleep) => sleep.ms)).to.deep.equal([30_000]);
      firer.noteDue(2_000);
      await settle();
      expect(clock.pending.map((sleep) => sleep.ms)).to.deep.equal([2_000]);
      firer.noteDue(0);
      await settle();
      expect(store.reads).to.equal(2);
      firer.noteDue(undefined);
      await settle();
      expect(clock.pending).to.deep.equal([]);
      await clock.advance(3_600_000);
      expect(store.reads).to.equal(2);
    });

    it("with a cap, it reads once per cap while nothing is due (no schedule, or a far one)", async () => {
      firer = make(30_000);
      void firer.start();
      await settle();
      expect(store.reads).to.equal(1);
      await clock.advance(90_000);
      expect(store.reads).to.equal(4);
      defineEvery("far", 86_400_000, 3_600_000);
      await clock.advance(30_000);
      expect(clock.pending.map((sleep) => sleep.ms)).to.deep.equal([30_000]);
      firer.noteDue(undefined);
      await settle();
      expect(clock.pending.map((sleep) => sleep.ms)).to.deep.equal([30_000]);
    });

    it("a failed read is reported and tried again after 100 ms, doubling; a read that works ends the back-off", async () => {
      defineEvery("a", 60_000, 30_000);
      store.readReplies.push(new Error("down"), new Error("down"), new Error("down"));
      firer = make();
      void firer.start();
      await settle();
      expect(errors).to.have.length(1);
      expect(clock.pending.map((sleep) => sleep.ms)).to.deep.equal([100]);
      await clock.advance(100);
      expect(clock.pending.map((sleep) => sleep.ms)).to.deep.equal([200]);
      await clock.advance(200);
      expect(clock.pending.map((sleep) => sleep.ms)).to.deep.equal([400]);
      await clock.advance(400);
      expect(errors).to.have.length(3);
      expect(store.reads).to.equal(4);
      expect(clock.pending.map((sleep) => sleep.ms)).to.deep.equal([30_000 - 700]);
    });

    it("a definition changed between the read and the fire (stale): it reads again at once, a few times at most, then a second later", async () => {
      defineEvery("a", 10_000, 1_000);
      firer = make();
      void firer.start();
      await settle();
      store.fireStatuses.push("stale", "stale", "stale", "stale", "stale");
      await clock.advance(1_000);
      // The first pass and three more at once; then the timer's.
      expect(store.reads).to.equal(2 + 3);
      expect(store.fires).to.have.length(4);
      // Then a pass a second later.
      expect(clock.pending.map((sleep) => sleep.ms)).to.deep.equal([1_000]);
      expect(errors).to.deep.equal([]);
    });

    it("stop: no pass after it, and it waits for the pass running", async () => {
      defineEvery("a", 10_000, 1_000);
      const reply = held<ScheduleRead | null>();
      store.readReplies.push(reply.promise);
      firer = make();
      void firer.start();
      await settle();
      let stopped = false;
      const stopping = firer.stop().then(() => (stopped = true));
      await settle();
      expect(stopped).to.equal(false);
      reply.resolve(store.snapshot());
      await stopping;
      expect(store.fires).to.have.length(0);
      expect(clock.pending).to.deep.equal([]);
      firer.refresh();
      firer.noteDue(0);
      await clock.advance(60_000);
      expect(store.reads).to.equal(1);
    });

    it("a schedule the planner refuses is reported; the others still fire", async () => {
      defineEvery("good", 10_000, 1_000);
      store.define("bad", { cron: "not a cron", tz: "UTC", createdAt: 1, updatedAt: 1, since: 1 });
      firer = make();
      void firer.start();
      await clock.advance(1_000);
      expect(errors.length).to.be.at.least(1);
      expect(fired.map((one) => one.name)).to.deep.equal(["good"]);
    });
  });

  describe("in a Worker (real Redis)", () => {
    const queue = freshQueueEachTest();

    it("a Worker fires its queue's schedule; its handler gets message.schedule, the schedule and slot the message was sent for", async () => {
      const { rsmq, cleanup } = queue;
      await rsmq.upsertScheduleAsync({ qname: "q", name: "tick", every: 1000, message: "tick" });
      const got: Array<RedisSMQ.QueueMessage> = [];
      // A cap of a minute: what fires each second is the firer's timer, not the Worker's looks.
      cleanup
        .worker(new RedisSMQ.Worker(rsmq, { qname: "q", maxIdleSleepMs: 60_000, handler: (message) => void got.push(message) }))
        .start();
      await waitFor(() => got.length >= 2, "two scheduled messages handled");
      const [info] = await rsmq.listSchedulesAsync({ qname: "q" });
      for (const message of got.slice(0, 2)) {
        expect(message.message).to.equal("tick");
        expect(message.schedule?.name).to.equal("tick");
        expect((message.schedule!.slot - info.anchor!) % 1000).to.equal(0);
      }
      expect(got[1].schedule!.slot).to.be.above(got[0].schedule!.slot);
    });

    it("a schedule upserted in another process: the Worker's firer reads it at once (its next slot settled), the Worker neither looks nor receives", async () => {
      const { rsmq, sender, cleanup, ns } = queue;
      const client = await plainClient();
      cleanup.add(() => client.quit());
      const worker = cleanup.worker(new RedisSMQ.Worker(rsmq, { qname: "q", maxIdleSleepMs: 60_000, handler: () => undefined }));
      const log = new WorkerLog(worker);
      worker.start();
      await waitFor(() => log.asleep && worker.counters.receives >= 2, "the worker subscribed and asleep");
      const polls = worker.counters.receives + worker.counters.looks;
      // An hour off: nothing to send, only its next slot to settle (the upsert leaves it unknown, 0).
      await sender.upsertScheduleAsync({ qname: "q", name: "later", every: 60_000, startAt: Date.now() + 3_600_000, message: "m" });
      const stored = async () =>
        JSON.parse((await client.hGet(keysOf(ns, "q").hash, "~sched:later"))!) as { next: number; startAt: number };
      await waitFor(async () => (await stored()).next !== 0, "the next slot settled by the Worker's firer");
      expect((await stored()).next).to.equal((await stored()).startAt);
      expect(worker.counters.receives + worker.counters.looks).to.equal(polls);
      expect(log.asleep).to.equal(true);
    });

    it("`schedules: false`: a Worker fires none; stopped, a Worker fires no more", async () => {
      const { rsmq, cleanup } = queue;
      await rsmq.upsertScheduleAsync({ qname: "q", name: "tick", every: 1000, message: "tick" });
      const client = await plainClient();
      cleanup.add(() => client.quit());
      const idle = cleanup.worker(
        new RedisSMQ.Worker(rsmq, { qname: "q", schedules: false, maxIdleSleepMs: 1000, handler: () => undefined }),
      );
      idle.start();
      const firing = new RedisSMQ.Worker(rsmq, { qname: "q", maxIdleSleepMs: 1000, handler: () => new Promise(() => undefined) });
      firing.start();
      await waitFor(async () => (await rsmq.listSchedulesAsync({ qname: "q" }))[0].count >= 1, "a message the firing Worker sent");
      await firing.stop();
      const [before] = await rsmq.listSchedulesAsync({ qname: "q" });
      // Three slots on with only the `schedules: false` Worker running: nothing sent.
      await serverTimePassed(client, 3000);
      const [after] = await rsmq.listSchedulesAsync({ qname: "q" });
      expect(after.count).to.equal(before.count);
    });
  });
});
