/**
 * planFire (lib/schedules/fire-plan.ts): which slots a firer sends at a given server time, how many
 * it counts as missed, and the next slot, per catch-up policy, window, on-time tolerance, limit,
 * endAt and the since/last boundaries. A firer is simulated by applying each plan as the
 * fireSchedule script does. Pure: no Redis.
 */
import { expect } from "chai";
import { MAX_CRON_COUNT, MAX_SLOTS_PER_FIRE, planFire } from "../../lib/schedules/fire-plan";
import type { FirePlan } from "../../lib/schedules/fire-plan";
import { parseStoredSchedule } from "../../lib/schedules/stored-schedule";
import type { StoredSchedule } from "../../lib/schedules/stored-schedule";
import { runsOn } from "../support/targets";

runsOn("single");

const T0 = Date.UTC(2026, 0, 5, 10, 0, 0);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A schedule as the upsert script stores a new one at T0 (since = anchor = T0, next unknown), with `fields` over it. */
function schedule(fields: Record<string, unknown>): StoredSchedule {
  const stored = {
    v: 1,
    tz: "UTC",
    message: "m",
    priority: 0,
    catchup: "latest",
    catchupWindowMs: DAY,
    overlap: "allow",
    paused: false,
    createdAt: T0,
    updatedAt: T0,
    since: T0,
    anchor: T0,
    next: 0,
    count: 0,
    missed: 0,
    overlapped: 0,
    ...fields,
  };
  return parseStoredSchedule("s", JSON.stringify(stored));
}

/** The state after the fireSchedule script applied `plan` at `nowMs`. */
function applied(state: StoredSchedule, plan: FirePlan, nowMs: number): StoredSchedule {
  const after = { ...state, next: plan.next, missed: state.missed + plan.missed, count: state.count + plan.slots.length };
  if (plan.handledThrough !== null) after.last = plan.handledThrough;
  if (plan.slots.length > 0) Object.assign(after, { lastRunAt: plan.slots[plan.slots.length - 1], lastSentAt: nowMs });
  return after;
}

/** Every slot from `first`, `step` apart, through `last`. */
const range = (first: number, last: number, step: number): number[] =>
  Array.from({ length: Math.floor((last - first) / step) + 1 }, (_, i) => first + i * step);

describe("planFire", () => {
  it("a new every schedule fires its anchor at once, then settles next", () => {
    const state = schedule({ every: 5000 });
    const plan = planFire(state, T0)!;
    expect(plan).to.deep.equal({ slots: [T0], handledThrough: T0, missed: 0, next: T0 + 5000, dedupTtlMs: MINUTE });
    const after = applied(state, plan, T0);
    expect(planFire(after, T0 + 4999), "nothing due, next already right").to.equal(undefined);
    expect(planFire(after, T0 + 5000)!.slots).to.deep.equal([T0 + 5000]);
  });

  it("with nothing due and next unknown, settles next only", () => {
    const state = schedule({ every: HOUR, startAt: T0 + DAY, anchor: T0 + DAY });
    expect(planFire(state, T0 + 10)).to.deep.equal({ slots: [], handledThrough: null, missed: 0, next: T0 + DAY, dedupTtlMs: 2 * HOUR });
    expect(planFire({ ...state, next: T0 + DAY }, T0 + 10)).to.equal(undefined);
  });

  it("paused or ended: nothing to do", () => {
    expect(planFire(schedule({ every: 5000, paused: true }), T0 + HOUR)).to.equal(undefined);
    expect(planFire(schedule({ every: 5000, next: -1 }), T0 + HOUR)).to.equal(undefined);
  });

  describe("on-time tolerance: half the period, at most a minute", () => {
    it("every 5000: a slot fired 2500 ms late is on time, 2501 ms late is missed", () => {
      const state = schedule({ every: 5000, catchup: "none", last: T0, next: T0 + 5000 });
      expect(planFire(state, T0 + 7500)).to.deep.include({ slots: [T0 + 5000], missed: 0 });
      expect(planFire(state, T0 + 7501)).to.deep.include({ slots: [], handledThrough: T0 + 5000, missed: 1, next: T0 + 10_000 });
    });

    it("every hour: a minute late is on time, a minute and 1 ms is missed", () => {
      const state = schedule({ every: HOUR, catchup: "none", last: T0, next: T0 + HOUR });
      expect(planFire(state, T0 + HOUR + MINUTE)).to.deep.include({ slots: [T0 + HOUR], missed: 0 });
      expect(planFire(state, T0 + HOUR + MINUTE + 1)).to.deep.include({ slots: [], missed: 1 });
    });
  });

  describe("two weeks down, every 5000", () => {
    const down = 14 * DAY + 3000; // the newest slot is 3 s old: missed, not on time
    const due = Math.floor(down / 5000) + 1; // the anchor and every slot since
    const newest = T0 + Math.floor(down / 5000) * 5000;

    it("latest: one message for the newest slot; the rest counted missed", () => {
      const plan = planFire(schedule({ every: 5000, catchup: "latest" }), T0 + down)!;
      expect(plan).to.deep.equal({ slots: [newest], handledThrough: newest, missed: due - 1, next: newest + 5000, dedupTtlMs: MINUTE });
    });

    it("none: no message; every slot counted missed", () => {
      const plan = planFire(schedule({ every: 5000, catchup: "none" }), T0 + down)!;
      expect(plan).to.deep.include({ slots: [], handledThrough: newest, missed: due, next: newest + 5000 });
    });

    it("all: the newest 100 within the window; the rest counted missed", () => {
      const plan = planFire(schedule({ every: 5000, catchup: "all" }), T0 + down)!;
      expect(plan.slots).to.deep.equal(range(newest - 99 * 5000, newest, 5000));
      expect(plan).to.deep.include({ handledThrough: newest, missed: due - MAX_SLOTS_PER_FIRE });
    });
  });

  describe("the catch-up window", () => {
    it("latest: the newest slot only when it is within catchupWindowMs", () => {
      const state = schedule({ every: 2 * DAY, catchupWindowMs: HOUR, last: T0, next: T0 + 2 * DAY });
      expect(planFire(state, T0 + 2 * DAY + HOUR)).to.deep.include({ slots: [T0 + 2 * DAY], missed: 0 });
      expect(planFire(state, T0 + 2 * DAY + HOUR + 1)).to.deep.include({ slots: [], handledThrough: T0 + 2 * DAY, missed: 1 });
    });

    it("all: only the slots within catchupWindowMs, oldest first", () => {
      const state = schedule({ every: MINUTE, catchup: "all", catchupWindowMs: 5 * MINUTE, last: T0, next: T0 + MINUTE });
      const now = T0 + HOUR + 30 * SECOND; // the newest slot, T0 + 1 h, is on time
      const plan = planFire(state, now)!;
      expect(plan.slots, "the slots at most 5 minutes old").to.deep.equal(range(T0 + 56 * MINUTE, T0 + HOUR, MINUTE));
      expect(plan).to.deep.include({ handledThrough: T0 + HOUR, missed: 60 - 5, next: T0 + 61 * MINUTE });
    });

    it("all with a window shorter than the tolerance still fires the on-time slot", () => {
      const state = schedule({ every: HOUR, catchup: "all", catchupWindowMs: SECOND, last: T0, next: T0 + HOUR });
      expect(planFire(state, T0 + HOUR + 30 * SECOND)).to.deep.include({ slots: [T0 + HOUR], missed: 0 });
    });
  });

  describe("limit", () => {
    it("cuts the slots to what is left, keeps the oldest, and ends the schedule", () => {
      const state = schedule({ every: MINUTE, catchup: "all", limit: 10, count: 8, last: T0, next: T0 + MINUTE });
      const plan = planFire(state, T0 + 5 * MINUTE)!;
      expect(plan).to.deep.include({ slots: [T0 + MINUTE, T0 + 2 * MINUTE], handledThrough: T0 + 5 * MINUTE, missed: 0, next: -1 });
    });

    it("the fire that reaches it ends the schedule; until then next goes on", () => {
      let state = schedule({ every: 5000, limit: 3 });
      const fired: number[] = [];
      for (let now = T0; state.next !== -1 && now < T0 + MINUTE; now += 1000) {
        const plan = planFire(state, now);
        if (plan === undefined) continue;
        fired.push(...plan.slots);
        state = applied(state, plan, now);
      }
      expect(fired).to.deep.equal([T0, T0 + 5000, T0 + 10_000]);
      expect(state).to.deep.include({ count: 3, next: -1, missed: 0 });
    });
  });

  describe("startAt, endAt, since and last", () => {
    it("a slot at endAt fires; then the schedule ends", () => {
      const state = schedule({ every: MINUTE, endAt: T0 + 2 * MINUTE, last: T0 + MINUTE, next: T0 + 2 * MINUTE });
      expect(planFire(state, T0 + 2 * MINUTE)).to.deep.include({ slots: [T0 + 2 * MINUTE], next: -1 });
    });

    it("after endAt: the slots up to it are handled, none after it, and next is -1", () => {
      const state = schedule({ every: MINUTE, catchup: "none", endAt: T0 + 3 * MINUTE - 1, last: T0, next: T0 + MINUTE });
      expect(planFire(state, T0 + HOUR)).to.deep.include({ slots: [], handledThrough: T0 + 2 * MINUTE, missed: 2, next: -1 });
    });

    it("a slot at since counts; one before it does not", () => {
      const since = T0 + 10 * MINUTE; // the timing changed then: slots before it belong to no one
      const state = schedule({ every: MINUTE, catchup: "none", since, anchor: T0 + 20 * SECOND });
      expect(planFire(state, since + 5 * MINUTE)).to.deep.include({
        slots: [],
        handledThrough: since + 4 * MINUTE + 20 * SECOND,
        missed: 5,
      });
      const onSince = schedule({ every: MINUTE, catchup: "none", since, anchor: T0 });
      expect(planFire(onSince, since + 5 * MINUTE + 30 * SECOND)).to.deep.include({ slots: [since + 5 * MINUTE], missed: 5 });
    });

    it("the slot at last is handled already; the one after it is not", () => {
      const state = schedule({ every: MINUTE, last: T0 + MINUTE, next: T0 + 2 * MINUTE });
      expect(planFire(state, T0 + MINUTE + 30 * SECOND), "at last").to.equal(undefined);
      expect(planFire(state, T0 + 2 * MINUTE)).to.deep.include({ slots: [T0 + 2 * MINUTE], missed: 0 });
    });

    it("no slot before startAt", () => {
      const state = schedule({ every: MINUTE, startAt: T0 + HOUR, anchor: T0 + HOUR });
      expect(planFire(state, T0 + HOUR - 1)).to.deep.include({ slots: [], handledThrough: null, next: T0 + HOUR });
      expect(planFire(state, T0 + HOUR)).to.deep.include({ slots: [T0 + HOUR], missed: 0 });
    });
  });

  it("dedupTtlMs is twice the period, from a minute to 7 days", () => {
    expect(planFire(schedule({ every: 5000 }), T0)!.dedupTtlMs).to.equal(MINUTE);
    expect(planFire(schedule({ every: HOUR }), T0)!.dedupTtlMs).to.equal(2 * HOUR);
    expect(planFire(schedule({ every: 30 * DAY }), T0)!.dedupTtlMs).to.equal(7 * DAY);
    expect(planFire(schedule({ cron: "0 * * * *", anchor: undefined }), T0)!.dedupTtlMs).to.equal(2 * HOUR);
  });

  it("a firer that plans every second, late by up to 2 s, fires every slot once over a day: no drift, none missed", () => {
    let state = schedule({ every: 5000 });
    const fired: number[] = [];
    for (let now = T0, i = 0; now <= T0 + DAY; now += 1000 + ((i++ * 7919) % 1000)) {
      const plan = planFire(state, now);
      if (plan === undefined) continue;
      fired.push(...plan.slots);
      state = applied(state, plan, now);
    }
    expect(state.missed).to.equal(0);
    expect(fired).to.deep.equal(range(T0, fired[fired.length - 1], 5000));
    expect(fired.length).to.be.at.least(DAY / 5000);
  });

  describe("cron", () => {
    it("all: every 5 minutes, two hours down: each slot in the window fires, oldest first", () => {
      const state = schedule({ cron: "*/5 * * * *", catchup: "all", anchor: undefined, last: T0, next: T0 + 5 * MINUTE });
      const plan = planFire(state, T0 + 2 * HOUR + 10 * SECOND)!;
      expect(plan.slots).to.deep.equal(range(T0 + 5 * MINUTE, T0 + 2 * HOUR, 5 * MINUTE));
      expect(plan).to.deep.include({ missed: 0, next: T0 + 2 * HOUR + 5 * MINUTE });
    });

    it("latest: one slot, the rest counted missed exactly", () => {
      const state = schedule({ cron: "*/5 * * * *", anchor: undefined, last: T0, next: T0 + 5 * MINUTE });
      const plan = planFire(state, T0 + 2 * DAY + 2 * MINUTE)!;
      expect(plan).to.deep.include({ slots: [T0 + 2 * DAY], handledThrough: T0 + 2 * DAY, missed: (2 * DAY) / (5 * MINUTE) - 1 });
    });

    it("counting stops at its bound (MAX_CRON_COUNT), and the newest slots still fire", () => {
      const bound = 1000;
      const state = schedule({
        cron: "* * * * * *",
        catchup: "all",
        catchupWindowMs: MINUTE,
        anchor: undefined,
        last: T0,
        next: T0 + SECOND,
      });
      const now = T0 + 2 * DAY; // 172,800 slots due
      const plan = planFire(state, now, bound)!;
      expect(plan.slots).to.deep.equal(range(now - 60 * SECOND, now, SECOND));
      expect(plan.handledThrough).to.equal(now);
      expect(plan.missed)
        .to.be.at.least(bound - plan.slots.length)
        .and.below((2 * DAY) / SECOND);
      expect(plan.next).to.equal(now + SECOND);
      const latest = planFire({ ...state, catchup: "latest", cron: "*/2 * * * * *" }, now + 1500, bound)!;
      expect(latest.slots, "the newest, not on time (1.5 s late of 2 s) but within the window").to.deep.equal([now]);
      expect(MAX_CRON_COUNT).to.equal(100_000);
    });

    it("past the bound, the newest slots are found even when the last hours before now have none", () => {
      // Every second from 09:00 to 09:59 UTC: at noon, the newest slots are three hours old.
      const state = schedule({ cron: "* * 9 * * *", catchup: "all", catchupWindowMs: DAY, anchor: undefined, last: T0, next: T0 + SECOND });
      const now = T0 + 3 * DAY + 2 * HOUR; // T0 is 10:00: now is 12:00, three days on
      const nineLast = T0 + 3 * DAY - MINUTE / 60; // 09:59:59 today
      const plan = planFire(state, now, 1000)!;
      expect(plan.slots).to.deep.equal(range(nineLast - 99 * SECOND, nineLast, SECOND));
      expect(plan.handledThrough).to.equal(nineLast);
      expect(plan.next).to.equal(T0 + 3 * DAY + 23 * HOUR);
    });
  });
});
