/**
 * The schedule operations against a real server: upsertSchedule, removeSchedule, pauseSchedule,
 * resumeSchedule and listSchedules as their callers see them (results, errors, the `:Q` fields
 * they leave, one command each, the control wake), and the fire script (lua/fireSchedule-n.lua)
 * run directly with plans written by hand: the checks that make a slot fire at most once.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { onQueueActivity } from "../../lib/wakes/wake-hub";
import { fireSchedule, slotDedupId } from "../../lib/operations/fire-schedule";
import type { FireOutcome } from "../../lib/operations/fire-schedule";
import { readSchedules } from "../../lib/operations/list-schedules";
import { dedupKey } from "../../lib/operations/dedup-id";
import type { FirePlan } from "../../lib/schedules/fire-plan";
import type { StoredSchedule } from "../../lib/schedules/stored-schedule";
import { asMessage, rejectionOf } from "../support/old-rsmq";
import { serverNowMs } from "../support/inspect";
import { exactState } from "../support/state";
import { connectionOptions, keysOf, plainClient, singleServerOnly, singleServerOptions, uniqueNs } from "../support/server";
import { builtEntry, runChild } from "../support/child-process";
import { clientCommands, monitor } from "../support/wire";
import { Cleanup } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

describe("schedules: the operations and the fire script", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  const cleanup = new Cleanup();
  const keys = (): ReturnType<typeof keysOf> => keysOf(ns, "q");
  const field = async (name: string): Promise<string | undefined> => (await client.hGet(keys().hash, name)) ?? undefined;
  const stored = async (name: string): Promise<Record<string, unknown> | undefined> => {
    const text = await field(`~sched:${name}`);
    return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
  };
  const read = async (name: string): Promise<StoredSchedule> => {
    const { stored: schedules } = await internalsOf(rsmq).run(() => readSchedules(internalsOf(rsmq).layout, "q"));
    const found = schedules.find((schedule) => schedule.name === name);
    if (!found) throw new Error(`no schedule ${name}`);
    return found;
  };
  const fire = (schedule: StoredSchedule, plan: Partial<FirePlan>): Promise<FireOutcome> =>
    internalsOf(rsmq).run(() =>
      fireSchedule(internalsOf(rsmq).layout, "wake", "q", schedule, {
        slots: [],
        handledThrough: null,
        missed: 0,
        next: 0,
        dedupTtlMs: 60_000,
        ...plan,
      }),
    );
  /** Slots of an `every: 1000` schedule anchored 10 s back: all due now. */
  const pastSlots = (anchor: number, count: number): number[] => Array.from({ length: count }, (_, k) => anchor + k * 1000);
  const upsertPast = async (name: string, extra: Partial<RedisSMQ.UpsertScheduleOptions> = {}): Promise<number> => {
    const startAt = (await serverNowMs(client)) - 10_000;
    await rsmq.upsertScheduleAsync({ qname: "q", name, every: 1000, startAt, message: `from ${name}`, ...extra });
    return startAt;
  };

  beforeEach(async () => {
    ns = uniqueNs("sched");
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    client = await plainClient();
    cleanup.add(() => client.quit());
    await rsmq.createQueueAsync({ qname: "q", vt: 30 });
  });
  afterEach(() => cleanup.run());

  describe("upsertSchedule", () => {
    it("creates one in one command: the definition, a fresh state, the index, schednext 0, and a control wake", async () => {
      // The script loaded first (a first EVALSHA answers NOSCRIPT), by a schedule of another queue.
      await rsmq.createQueueAsync({ qname: "other" });
      await rsmq.upsertScheduleAsync({ qname: "other", name: "warm", every: 5000, message: "m" });
      const inProcess: Array<string | undefined> = [];
      const stop = onQueueActivity(ns, "q", (text) => inProcess.push(text));
      cleanup.add(async () => stop());
      const before = await serverNowMs(client);
      let created: number | undefined;
      const commands = await monitor(async () => {
        created = await rsmq.upsertScheduleAsync({ qname: "q", name: "ping", every: 5000, message: "ping" });
      });
      expect(created).to.equal(1);
      expect(clientCommands(commands)).to.deep.equal(["evalsha"]);
      const record = (await stored("ping"))!;
      expect(record).to.include({
        every: 5000,
        tz: "UTC",
        message: "ping",
        priority: 0,
        catchup: "latest",
        catchupWindowMs: 86_400_000,
        overlap: "allow",
        paused: false,
        next: 0,
        count: 0,
        missed: 0,
        overlapped: 0,
      });
      expect(record.since).to.be.at.least(before);
      expect(record.anchor).to.equal(record.since);
      expect(record.createdAt).to.equal(record.since);
      expect(record.v).to.equal(record.since, "a new schedule's v is the server's ms");
      expect(record).to.not.have.any.keys("last", "lastId", "cron", "delay");
      expect(await field("schedules")).to.equal("ping");
      expect(await field("schednext")).to.equal("0");
      expect(inProcess).to.deep.equal([`~sched:${String(record.since)}`]);
    });

    it("again with the same timing: 0, the definition replaced, the state kept (last, next, counts, anchor), v bumped", async () => {
      const anchor = await upsertPast("s");
      const first = await read("s");
      const slots = pastSlots(anchor, 3);
      expect((await fire(first, { slots: [slots[2]], handledThrough: slots[2], missed: 2, next: slots[2] + 1000 })).status).to.equal(
        "fired",
      );
      const fired = (await stored("s"))!;
      expect(
        await rsmq.upsertScheduleAsync({ qname: "q", name: "s", every: 1000, startAt: anchor, message: "new body", priority: 3 }),
      ).to.equal(0);
      const after = (await stored("s"))!;
      expect(after).to.include({ message: "new body", priority: 3, v: (fired.v as number) + 1 });
      for (const key of ["anchor", "since", "last", "next", "count", "missed", "lastId", "lastRunAt", "createdAt"]) {
        expect(after[key], key).to.equal(fired[key]);
      }
      expect(await field("schedules")).to.equal("s");
    });

    it("with a new timing: since and anchor from now, next unknown (0), last and counts kept", async () => {
      const anchor = await upsertPast("s");
      const slot = pastSlots(anchor, 5)[4];
      await fire(await read("s"), { slots: [slot], handledThrough: slot, next: slot + 1000 });
      const before = (await stored("s"))!;
      const now = await serverNowMs(client);
      expect(await rsmq.upsertScheduleAsync({ qname: "q", name: "s", every: 2000, message: "m" })).to.equal(0);
      const after = (await stored("s"))!;
      expect(after).to.include({ every: 2000, next: 0, last: slot, count: 1, lastId: before.lastId });
      expect(after.since).to.be.at.least(now);
      expect(after.anchor).to.equal(after.since);
      expect(after).to.not.have.key("startAt");
      expect(await field("schednext")).to.equal("0");
    });

    it("refuses a message longer than the queue's maxsize (messageTooLong) and a 101st schedule (invalidValue), writing nothing", async () => {
      await rsmq.setQueueAttributesAsync({ qname: "q", maxsize: 1024 });
      const tooLong = await rejectionOf(rsmq.upsertScheduleAsync({ qname: "q", name: "big", every: 1000, message: "x".repeat(1025) }));
      expect(tooLong.name).to.equal("messageTooLong");
      for (let i = 0; i < 100; i++) await rsmq.upsertScheduleAsync({ qname: "q", name: `s${i}`, every: 1000, message: "m" });
      const before = await exactState(client, ns);
      const tooMany = await rejectionOf(rsmq.upsertScheduleAsync({ qname: "q", name: "s100", every: 1000, message: "m" }));
      expect(tooMany.name).to.equal("invalidValue");
      expect(tooMany.message).to.match(/at most 100 schedules/);
      expect(await exactState(client, ns)).to.deep.equal(before);
      expect(await rsmq.upsertScheduleAsync({ qname: "q", name: "s7", every: 2000, message: "m" }), "an existing one is replaced").to.equal(
        0,
      );
      expect((await field("schedules"))!.split(" ")).to.have.length(100);
    });

    it("rejects queueNotFound for a missing queue", async () => {
      const error = await rejectionOf(rsmq.upsertScheduleAsync({ qname: "nope", name: "s", every: 1000, message: "m" }));
      expect(error.name).to.equal("queueNotFound");
    });

    const BAD: Array<[string, Partial<RedisSMQ.UpsertScheduleOptions>]> = [
      ["both every and cron", { every: 1000, cron: "* * * * *" }],
      ["neither every nor cron", {}],
      ["a bad cron expression", { cron: "61 * * * *" }],
      ["an unknown zone", { cron: "0 2 * * *", tz: "Mars/Olympus" }],
      ["every below 1000 ms", { every: 999 }],
      ["every above 366 days", { every: 366 * 86_400_000 + 1 }],
      ["tz with every", { every: 1000, tz: "UTC" }],
      ["a name with a space", { every: 1000, name: "a b" }],
      ["a name of 101 characters", { every: 1000, name: "n".repeat(101) }],
      ["a message that is not a string", { every: 1000, message: 5 as unknown as string }],
      ["an unknown catchup", { every: 1000, catchup: "some" as "all" }],
    ];
    for (const [what, options] of BAD) {
      it(`refuses ${what} with invalidValue before any round trip: nothing sent, nothing written`, async () => {
        const before = await exactState(client, ns);
        let error: Error | undefined;
        const commands = await monitor(async () => {
          error = await rejectionOf(rsmq.upsertScheduleAsync({ qname: "q", name: "s", message: "m", ...options }));
        });
        expect(error?.name).to.equal("invalidValue");
        expect(commands).to.deep.equal([]);
        expect(await exactState(client, ns)).to.deep.equal(before);
      });
    }
  });

  describe("pause, resume, remove, list", () => {
    it("pause: 1, then 0; a paused schedule leaves schednext; resume: 1 (since now, next 0), then 0", async () => {
      await rsmq.upsertScheduleAsync({ qname: "q", name: "s", every: 1000, message: "m" });
      const v = (await stored("s"))!.v as number;
      expect(await rsmq.pauseScheduleAsync({ qname: "q", name: "s" })).to.equal(1);
      expect(await stored("s")).to.include({ paused: true, v: v + 1 });
      expect(await field("schednext")).to.equal(undefined);
      expect(await rsmq.pauseScheduleAsync({ qname: "q", name: "s" })).to.equal(0);
      const now = await serverNowMs(client);
      expect(await rsmq.resumeScheduleAsync({ qname: "q", name: "s" })).to.equal(1);
      const resumed = (await stored("s"))!;
      expect(resumed).to.include({ paused: false, v: v + 2, next: 0 });
      expect(resumed.since).to.be.at.least(now);
      expect(await field("schednext")).to.equal("0");
      expect(await rsmq.resumeScheduleAsync({ qname: "q", name: "s" })).to.equal(0);
    });

    it("pause and resume reject scheduleNotFound, and queueNotFound", async () => {
      for (const call of [rsmq.pauseScheduleAsync, rsmq.resumeScheduleAsync]) {
        const missing = await rejectionOf(call({ qname: "q", name: "none" }));
        expect([missing.name, missing.message, (missing as Error & { code: string }).code]).to.deep.equal([
          "scheduleNotFound",
          "Schedule not found",
          "ERR_RSMQ_NEXT_SCHEDULE_NOT_FOUND",
        ]);
        expect((await rejectionOf(call({ qname: "nope", name: "s" }))).name).to.equal("queueNotFound");
      }
    });

    it("remove: 1 and the field, the name and schednext gone; then 0; queueNotFound for a missing queue", async () => {
      await rsmq.upsertScheduleAsync({ qname: "q", name: "a", every: 1000, message: "m" });
      await rsmq.upsertScheduleAsync({ qname: "q", name: "b", every: 1000, message: "m" });
      expect(await rsmq.removeScheduleAsync({ qname: "q", name: "a" })).to.equal(1);
      expect(await field("~sched:a")).to.equal(undefined);
      expect(await field("schedules")).to.equal("b");
      expect(await rsmq.removeScheduleAsync({ qname: "q", name: "a" })).to.equal(0);
      expect(await rsmq.removeScheduleAsync({ qname: "q", name: "b" })).to.equal(1);
      expect(await field("schedules")).to.equal(undefined);
      expect(await field("schednext")).to.equal(undefined);
      expect((await rejectionOf(rsmq.removeScheduleAsync({ qname: "nope", name: "a" }))).name).to.equal("queueNotFound");
    });

    it("bad names are refused before any round trip by remove, pause and resume", async () => {
      const commands = await monitor(async () => {
        for (const call of [rsmq.removeScheduleAsync, rsmq.pauseScheduleAsync, rsmq.resumeScheduleAsync]) {
          expect((await rejectionOf(call({ qname: "q", name: "a b" }))).name).to.equal("invalidValue");
          expect((await rejectionOf(call({ qname: "q", name: "" }))).name).to.equal("invalidValue");
        }
      });
      expect(commands).to.deep.equal([]);
    });

    it("list: sorted by name, definitions and state, a next not yet settled planned from the server's time", async () => {
      await rsmq.upsertScheduleAsync({ qname: "q", name: "zeta", every: 60_000, message: "z", limit: 3 });
      await rsmq.upsertScheduleAsync({ qname: "q", name: "alpha", cron: "0 2 * * *", tz: "Europe/Berlin", message: "a" });
      await rsmq.pauseScheduleAsync({ qname: "q", name: "alpha" });
      const [alpha, zeta] = await rsmq.listSchedulesAsync({ qname: "q" });
      expect(alpha).to.include({
        name: "alpha",
        cron: "0 2 * * *",
        tz: "Europe/Berlin",
        paused: true,
        nextRunAt: null,
        ended: false,
        count: 0,
      });
      expect(zeta).to.include({ name: "zeta", every: 60_000, tz: "UTC", limit: 3, paused: false, lastRunAt: null, lastId: null });
      expect(zeta.nextRunAt, "its first slot is its anchor, due at once").to.equal(zeta.anchor);
      expect((await rejectionOf(rsmq.listSchedulesAsync({ qname: "nope" }))).name).to.equal("queueNotFound");
      expect(await rsmq.listSchedulesAsync({ qname: "q" })).to.have.length(2);
    });
  });

  describe("the fire script", () => {
    it("fires a slot once: the message, its `:at`, the claim with its TTL, the state; the same plan again is done", async () => {
      const anchor = await upsertPast("s");
      const schedule = await read("s");
      const slot = pastSlots(anchor, 10)[9];
      const plan = { slots: [slot], handledThrough: slot, missed: 9, next: slot + 1000, dedupTtlMs: 120_000 };
      const first = await fire(schedule, plan);
      expect(first.status).to.equal("fired");
      expect(first.next).to.equal(slot + 1000);
      expect(first.ids).to.have.length(1);
      const [id] = first.ids;
      expect(await fire(schedule, plan)).to.deep.equal({ status: "done", next: slot + 1000, ids: [], sent: [] });
      expect(await client.zCard(keys().messages)).to.equal(1);
      expect(JSON.parse((await field(`${id}:at`))!)).to.deep.equal({ schedule: "s", slot });
      const claim = dedupKey(keys(), slotDedupId("s", slot), "");
      expect(await client.get(claim)).to.equal(id);
      expect(await client.pTTL(claim)).to.be.within(1, 120_000);
      expect(await stored("s")).to.include({ last: slot, lastRunAt: slot, lastId: id, count: 1, missed: 9, next: slot + 1000 });
      expect(await field("schednext")).to.equal(String(slot + 1000));
      expect(await field("totalsent")).to.equal("1");
      const received = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
      expect(received).to.include({ id, message: "from s" });
    });

    it("five processes firing the same slot at once: one message, one fired, the others done", async () => {
      const anchor = await upsertPast("s");
      const schedule = await read("s");
      const slot = pastSlots(anchor, 10)[9];
      const firers = Array.from({ length: 5 }, () => cleanup.rsmq(new RedisSMQ(connectionOptions(ns))));
      const outcomes = await Promise.all(
        firers.map((firer) =>
          internalsOf(firer).run(() =>
            fireSchedule(internalsOf(firer).layout, "wake", "q", schedule, {
              slots: [slot],
              handledThrough: slot,
              missed: 0,
              next: slot + 1000,
              dedupTtlMs: 60_000,
            }),
          ),
        ),
      );
      expect(outcomes.map(({ status }) => status).sort()).to.deep.equal(["done", "done", "done", "done", "fired"]);
      expect(await client.zCard(keys().messages)).to.equal(1);
      expect(await stored("s")).to.include({ count: 1, last: slot });
    });

    it("a plan from before an upsert, a pause or a resume is stale: nothing written", async () => {
      const anchor = await upsertPast("s");
      const old = await read("s");
      const slot = pastSlots(anchor, 10)[9];
      await rsmq.upsertScheduleAsync({ qname: "q", name: "s", every: 1000, startAt: anchor, message: "changed" });
      const before = await exactState(client, ns);
      expect((await fire(old, { slots: [slot], handledThrough: slot, next: slot + 1000 })).status).to.equal("stale");
      const fresh = await read("s");
      await rsmq.pauseScheduleAsync({ qname: "q", name: "s" });
      const paused = await read("s");
      const pausedState = await exactState(client, ns);
      expect((await fire(fresh, { slots: [slot], handledThrough: slot, next: slot + 1000 })).status).to.equal("stale");
      expect((await fire(paused, { slots: [slot], handledThrough: slot, next: slot + 1000 })).status, "paused").to.equal("stale");
      expect(await exactState(client, ns)).to.deep.equal(pausedState);
      expect(before).to.not.deep.equal(pausedState);
      expect(await client.zCard(keys().messages)).to.equal(0);
    });

    it("a slot later than the server's now is early: nothing written, whatever the host clock says", async () => {
      await upsertPast("s");
      const schedule = await read("s");
      const later = (await serverNowMs(client)) + 60_000;
      const before = await exactState(client, ns);
      expect(await fire(schedule, { slots: [later], handledThrough: later, next: later + 1000 })).to.deep.include({
        status: "early",
        ids: [],
        sent: [],
      });
      expect(await exactState(client, ns)).to.deep.equal(before);
    });

    it('overlap "skip": while the last message is in the queue a slot sends nothing and is counted; once it is deleted, the next fires', async () => {
      const anchor = await upsertPast("s", { overlap: "skip" });
      const slots = pastSlots(anchor, 10);
      const [id] = (await fire(await read("s"), { slots: [slots[7]], handledThrough: slots[7], next: slots[8] })).ids;
      const skipped = await fire(await read("s"), { slots: [slots[8]], handledThrough: slots[8], next: slots[9] });
      expect(skipped).to.deep.equal({ status: "skipped", next: slots[9], ids: [], sent: [] });
      expect(await stored("s")).to.include({ overlapped: 1, count: 1, last: slots[8], lastId: id });
      expect(await client.zCard(keys().messages)).to.equal(1);
      await rsmq.deleteMessageAsync({ qname: "q", id });
      const fired = await fire(await read("s"), { slots: [slots[9]], handledThrough: slots[9], next: slots[9] + 1000 });
      expect(fired.status).to.equal("fired");
      expect(fired.ids).to.have.length(1);
    });

    it("limit: the slots past it send nothing, and the schedule ends (next -1, out of schednext)", async () => {
      const anchor = await upsertPast("s", { limit: 2 });
      const slots = pastSlots(anchor, 3);
      const fired = await fire(await read("s"), { slots, handledThrough: slots[2], next: slots[2] + 1000 });
      expect(fired.status).to.equal("fired");
      expect(fired.ids).to.have.length(2);
      expect(fired.next).to.equal(-1);
      expect(fired.ids[0] < fired.ids[1], "the ids sort in slot order").to.equal(true);
      expect(await stored("s")).to.include({ count: 2, next: -1, lastRunAt: slots[1] });
      expect(await field("schednext")).to.equal(undefined);
      const [info] = await rsmq.listSchedulesAsync({ qname: "q" });
      expect(info).to.include({ ended: true, nextRunAt: null, count: 2 });
    });

    it("a slot fired before a removal is not sent again by the schedule written anew: its claim holds", async () => {
      const anchor = await upsertPast("s");
      const slot = pastSlots(anchor, 10)[9];
      const plan = { slots: [slot], handledThrough: slot, next: slot + 1000 };
      expect((await fire(await read("s"), plan)).ids).to.have.length(1);
      expect(await rsmq.removeScheduleAsync({ qname: "q", name: "s" })).to.equal(1);
      expect(await fire(await read("s").catch(() => ({ name: "s", v: 0 }) as StoredSchedule), plan)).to.deep.include({ status: "gone" });
      await rsmq.upsertScheduleAsync({ qname: "q", name: "s", every: 1000, startAt: anchor, message: "again" });
      const again = await fire(await read("s"), plan);
      expect(again).to.deep.equal({ status: "fired", next: slot + 1000, ids: [], sent: [] });
      expect(await client.zCard(keys().messages)).to.equal(1);
      expect(await stored("s")).to.include({ last: slot, count: 0 });
    });

    it("names the slot of each message it stored, when an earlier slot's claim was taken too", async () => {
      const anchor = await upsertPast("s");
      const [taken, free] = pastSlots(anchor, 10).slice(8);
      await client.set(dedupKey(keys(), slotDedupId("s", taken), ""), "elsewhere", { PX: 60_000 });
      const outcome = await fire(await read("s"), { slots: [taken, free], handledThrough: free, next: free + 1000 });
      expect(outcome.ids).to.have.length(1);
      expect(outcome.sent).to.deep.equal([{ slot: free, id: outcome.ids[0] }]);
      expect(JSON.parse((await field(`${outcome.ids[0]}:at`))!)).to.deep.equal({ schedule: "s", slot: free });
    });

    it("no slot and no handledThrough settles next only: one write when it differs, none when it is equal", async () => {
      await upsertPast("s");
      const next = (await serverNowMs(client)) + 5000;
      expect(await fire(await read("s"), { next })).to.deep.equal({ status: "done", next, ids: [], sent: [] });
      expect(await stored("s")).to.include({ next });
      expect(await field("schednext")).to.equal(String(next));
      const before = await exactState(client, ns);
      expect(await fire(await read("s"), { next })).to.deep.equal({ status: "done", next, ids: [], sent: [] });
      expect(await exactState(client, ns)).to.deep.equal(before);
    });

    it("slots counted missed only (no slot fired) advance last and missed", async () => {
      const anchor = await upsertPast("s", { catchup: "none" });
      const slots = pastSlots(anchor, 10);
      const outcome = await fire(await read("s"), { handledThrough: slots[9], missed: 10, next: slots[9] + 1000 });
      expect(outcome).to.deep.equal({ status: "fired", next: slots[9] + 1000, ids: [], sent: [] });
      expect(await stored("s")).to.include({ last: slots[9], missed: 10, count: 0 });
      expect(await client.zCard(keys().messages)).to.equal(0);
    });

    it("the body goes through the stored JSON unchanged: quotes, slashes, escapes, NUL, non-ASCII, emoji", async () => {
      const body = 'a "quoted" \\ back/slash\n\ttab \u0000 nul, é, 日本, 😀, {"json": [1, 2]}';
      const anchor = await upsertPast("s", { message: body });
      const slot = pastSlots(anchor, 10)[9];
      const [id] = (await fire(await read("s"), { slots: [slot], handledThrough: slot, next: slot + 1000 })).ids;
      expect(await field(id)).to.equal(body);
      expect(asMessage(await rsmq.receiveMessageAsync({ qname: "q" })).message).to.equal(body);
      expect((await rsmq.listSchedulesAsync({ qname: "q" }))[0].message).to.equal(body);
    });

    it("the queue's delay and the schedule's priority score the message as a send would", async () => {
      await rsmq.setQueueAttributesAsync({ qname: "q", delay: 30 });
      const anchor = await upsertPast("s");
      const slot = pastSlots(anchor, 10)[9];
      const now = await serverNowMs(client);
      const [id] = (await fire(await read("s"), { slots: [slot], handledThrough: slot, next: slot + 1000 })).ids;
      const score = Number(await client.zScore(keys().messages, id));
      expect(score - now).to.be.within(30_000, 31_000);
      expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    });
  });

  describe("without croner (an optional peer)", () => {
    /** Runs `body` in a child process that cannot resolve croner, with `rsmq` on this test's namespace; prints what `body` returns. */
    async function withoutCroner(body: string): Promise<unknown> {
      const program = `
        const Module = require("module");
        const resolve = Module._resolveFilename;
        Module._resolveFilename = function (request, ...rest) {
          if (request === "croner") throw Object.assign(new Error("Cannot find module 'croner'"), { code: "MODULE_NOT_FOUND" });
          return resolve.call(this, request, ...rest);
        };
        const RedisSMQ = require(${JSON.stringify(builtEntry)});
        const rsmq = new RedisSMQ(JSON.parse(process.env.CONNECTION));
        (async () => {
          const outcome = await (async () => { ${body} })();
          await rsmq.quitAsync();
          console.log(JSON.stringify(outcome));
        })().catch((error) => { console.error(error); process.exit(1); });
      `;
      const child = await runChild(program, { CONNECTION: JSON.stringify(singleServerOptions(ns)) }, 20_000);
      expect(child.code, child.stderr).to.equal(0);
      return JSON.parse(child.stdout);
    }

    it("a cron upsert is refused naming the package, before any round trip; every works; a cron schedule lists with nextRunAt null", async function () {
      singleServerOnly(this, "the child process talks to the single server");
      await rsmq.upsertScheduleAsync({ qname: "q", name: "nightly", cron: "0 2 * * *", message: "m" });
      let outcome: unknown;
      const commands = await monitor(async () => {
        outcome = await withoutCroner(`
          const refused = await rsmq.upsertScheduleAsync({ qname: "q", name: "c", cron: "0 2 * * *", message: "m" }).catch((e) => [e.name, e.message]);
          return refused;
        `);
      });
      expect(outcome).to.deep.equal(["invalidValue", "cron schedules need the package croner: npm install croner"]);
      expect(
        clientCommands(commands).filter((name) => name.startsWith("eval")),
        "no script ran",
      ).to.deep.equal([]);
      const listed = (await withoutCroner(`
        await rsmq.upsertScheduleAsync({ qname: "q", name: "every", every: 60000, message: "m" });
        return rsmq.listSchedulesAsync({ qname: "q" });
      `)) as RedisSMQ.ScheduleInfo[];
      expect(listed.map(({ name, nextRunAt, paused }) => [name, nextRunAt === null, paused])).to.deep.equal([
        ["every", false, false],
        ["nightly", true, false],
      ]);
    });

    it("the dashboard lists a cron schedule whose next slot is not settled with nextRunAt null, as listSchedules does", async function () {
      singleServerOnly(this, "the child process talks to the single server");
      await rsmq.upsertScheduleAsync({ qname: "q", name: "nightly", cron: "0 2 * * *", message: "m" });
      const answer = (await withoutCroner(`
        const http = require("http");
        const { createDashboard } = require(require("path").join(require("path").dirname(${JSON.stringify(builtEntry)}), "dashboard/index.js"));
        const dashboard = createDashboard({ rsmq });
        const server = http.createServer(dashboard);
        await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
        try {
          const response = await fetch("http://127.0.0.1:" + server.address().port + "/api/queues/q/schedules");
          return [response.status, await response.json()];
        } finally {
          dashboard.close();
          await new Promise((resolve) => server.close(resolve));
        }
      `)) as [number, { schedules: RedisSMQ.ScheduleInfo[] }];
      expect([answer[0], answer[1].schedules.map(({ name, nextRunAt }) => [name, nextRunAt])]).to.deep.equal([200, [["nightly", null]]]);
    });
  });
});
