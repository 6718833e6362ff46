/**
 * Daily cron schedules across DST changes, with a fake clock: a simulated firer plans every minute
 * of server time over 3 days around each change and applies each plan as the fireSchedule script
 * does. Each daily time fires exactly once per local day: a time in the spring gap at the first
 * valid time after it (03:00 local), a time in the repeated autumn hour once, at its first
 * occurrence. Pure: no Redis.
 *
 * What croner 11.0.1 does (and the planner relies on): with `fixedTimeRule: "no-wildcard"` a
 * pattern whose seconds, minutes and hours have no wildcard or step is a fixed-time job. In a
 * gap its nextRun() gives the first valid time after the gap (Berlin 2026-03-29 "30 2 * * *" →
 * 03:00 CEST, 01:00Z); in a repeated hour it gives the first occurrence only (Berlin 2026-10-25
 * 02:30 CEST, 00:30Z, and never 02:30 CET), also when asked from inside the second occurrence.
 * Interval patterns ("*\/30 * * * *") follow the wall clock: none in the gap, both occurrences of
 * the repeated hour.
 */
import { expect } from "chai";
import { planFire } from "../../lib/schedules/fire-plan";
import { parseStoredSchedule } from "../../lib/schedules/stored-schedule";
import type { StoredSchedule } from "../../lib/schedules/stored-schedule";
import { runsOn } from "../support/targets";

runsOn("single");

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "2026-03-29 03:00" for `ms` read in `tz`. */
function localTime(ms: number, tz: string): string {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone: tz,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(new Date(ms));
  const part = (type: string): string => parts.find((p) => p.type === type)!.value;
  return `${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")}`;
}

/** A cron schedule created at `createdAt`, as the upsert script stores it. */
function cronSchedule(cron: string, tz: string, createdAt: number): StoredSchedule {
  const fields = { v: 1, cron, tz, message: "m", priority: 0, catchup: "latest", catchupWindowMs: DAY, overlap: "allow", paused: false };
  const state = { createdAt, updatedAt: createdAt, since: createdAt, next: 0, count: 0, missed: 0, overlapped: 0 };
  return parseStoredSchedule("daily", JSON.stringify({ ...fields, ...state }));
}

/** The instant `date` (YYYY-MM-DD) begins in `tz`. */
function localMidnight(date: string, tz: string): number {
  for (let hours = -14; hours <= 14; hours++) {
    const candidate = Date.parse(`${date}T00:00:00Z`) - hours * HOUR;
    if (localTime(candidate, tz) === `${date} 00:00`) return candidate;
  }
  throw new Error(`no midnight of ${date} in ${tz}`);
}

/** The day after `date` (YYYY-MM-DD). */
const dayAfter = (date: string, days = 1): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);

/** Plans every minute of server time from `fromMs` until before `untilMs`; returns the slots fired, and the state at the end. */
function fireEveryMinute(start: StoredSchedule, fromMs: number, untilMs: number): { fired: number[]; state: StoredSchedule } {
  let state = start;
  const fired: number[] = [];
  for (let now = fromMs; now < untilMs; now += MINUTE) {
    const plan = planFire(state, now);
    if (plan === undefined) continue;
    fired.push(...plan.slots);
    state = { ...state, next: plan.next, count: state.count + plan.slots.length, missed: state.missed + plan.missed };
    if (plan.handledThrough !== null) state.last = plan.handledThrough;
  }
  return { fired, state };
}

interface Case {
  tz: string;
  cron: string;
  /** The day of the change. */
  change: string;
  /** The local times fired on the day before, the day of and the day after the change. */
  expected: [string, string, string];
}

const cases: Case[] = [
  { tz: "Europe/Berlin", cron: "30 2 * * *", change: "2026-03-29", expected: ["2026-03-28 02:30", "2026-03-29 03:00", "2026-03-30 02:30"] },
  { tz: "Europe/Berlin", cron: "0 9 * * *", change: "2026-03-29", expected: ["2026-03-28 09:00", "2026-03-29 09:00", "2026-03-30 09:00"] },
  { tz: "Europe/Berlin", cron: "30 2 * * *", change: "2026-10-25", expected: ["2026-10-24 02:30", "2026-10-25 02:30", "2026-10-26 02:30"] },
  { tz: "Europe/Berlin", cron: "0 9 * * *", change: "2026-10-25", expected: ["2026-10-24 09:00", "2026-10-25 09:00", "2026-10-26 09:00"] },
  {
    tz: "America/New_York",
    cron: "30 2 * * *",
    change: "2026-03-08",
    expected: ["2026-03-07 02:30", "2026-03-08 03:00", "2026-03-09 02:30"],
  },
  {
    tz: "America/New_York",
    cron: "0 9 * * *",
    change: "2026-03-08",
    expected: ["2026-03-07 09:00", "2026-03-08 09:00", "2026-03-09 09:00"],
  },
  {
    tz: "America/New_York",
    cron: "30 2 * * *",
    change: "2026-11-01",
    expected: ["2026-10-31 02:30", "2026-11-01 02:30", "2026-11-02 02:30"],
  },
  {
    tz: "America/New_York",
    cron: "0 9 * * *",
    change: "2026-11-01",
    expected: ["2026-10-31 09:00", "2026-11-01 09:00", "2026-11-02 09:00"],
  },
  // New York repeats 01:00-01:59 in autumn: the daily time inside it.
  {
    tz: "America/New_York",
    cron: "30 1 * * *",
    change: "2026-11-01",
    expected: ["2026-10-31 01:30", "2026-11-01 01:30", "2026-11-02 01:30"],
  },
];

describe("cron schedules across DST changes", () => {
  for (const { tz, cron, change, expected } of cases) {
    it(`"${cron}" in ${tz} around ${change}: once per local day, ${expected[1]} on the day`, () => {
      // The three local days: from midnight the day before the change to midnight after the day after it.
      const from = localMidnight(dayAfter(change, -1), tz);
      const until = localMidnight(dayAfter(change, 2), tz);
      const { fired, state } = fireEveryMinute(cronSchedule(cron, tz, from), from, until);
      expect(fired.map((slot) => localTime(slot, tz))).to.deep.equal(expected);
      expect(state.missed, "each fired on time").to.equal(0);
    });
  }

  it("the repeated hour fires at its first occurrence (Berlin 02:30 CEST, 00:30Z; New York 01:30 EDT, 05:30Z)", () => {
    const berlinFrom = Date.parse("2026-10-24T12:00:00Z");
    const berlin = fireEveryMinute(cronSchedule("30 2 * * *", "Europe/Berlin", berlinFrom), berlinFrom, berlinFrom + DAY);
    expect(berlin.fired).to.deep.equal([Date.parse("2026-10-25T00:30:00Z")]);
    const newYorkFrom = Date.parse("2026-10-31T12:00:00Z");
    const newYork = fireEveryMinute(cronSchedule("30 1 * * *", "America/New_York", newYorkFrom), newYorkFrom, newYorkFrom + DAY);
    expect(newYork.fired).to.deep.equal([Date.parse("2026-11-01T05:30:00Z")]);
  });

  it("created inside the second occurrence of the repeated hour, it waits for the next day", () => {
    const createdAt = Date.parse("2026-10-25T01:10:00Z"); // 02:10 CET, after 02:30 CEST has passed
    const { fired } = fireEveryMinute(cronSchedule("30 2 * * *", "Europe/Berlin", createdAt), createdAt, createdAt + DAY + HOUR);
    expect(fired).to.deep.equal([Date.parse("2026-10-26T01:30:00Z")]);
  });

  it("a listed time in the spring gap fires at 03:00 too; slots in the gap collapse into that one", () => {
    const from = Date.parse("2026-03-28T12:00:00Z");
    const { fired } = fireEveryMinute(cronSchedule("15,45 2 * * *", "Europe/Berlin", from), from, from + DAY);
    expect(fired.map((slot) => localTime(slot, "Europe/Berlin"))).to.deep.equal(["2026-03-29 03:00"]);
  });

  it("an interval pattern follows the wall clock: none in the gap, both occurrences of the repeated hour", () => {
    const spring = Date.parse("2026-03-29T00:00:00Z"); // 01:00 CET
    const springFired = fireEveryMinute(cronSchedule("0,30 * * * *", "Europe/Berlin", spring), spring, spring + 2 * HOUR + 1).fired;
    expect(springFired.map((slot) => localTime(slot, "Europe/Berlin"))).to.deep.equal([
      "2026-03-29 01:00",
      "2026-03-29 01:30",
      "2026-03-29 03:00",
      "2026-03-29 03:30",
      "2026-03-29 04:00",
    ]);
    const autumn = Date.parse("2026-10-24T23:30:00Z"); // 01:30 CEST
    const autumnFired = fireEveryMinute(cronSchedule("*/30 * * * *", "Europe/Berlin", autumn), autumn, autumn + 2 * HOUR + 1).fired;
    expect(autumnFired.map((slot) => new Date(slot).toISOString().slice(11, 16))).to.deep.equal([
      "23:30",
      "00:00",
      "00:30",
      "01:00",
      "01:30",
    ]);
  });
});
