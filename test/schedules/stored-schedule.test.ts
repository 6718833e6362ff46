/**
 * The stored form of a schedule (lib/schedules/stored-schedule.ts): the `~sched:<name>` JSON read
 * tolerantly (keys left out read as absent or as their defaults), and the public ScheduleInfo made
 * of it, with nextRunAt computed by the planner when the stored next is unknown. Pure: no Redis.
 */
import { expect } from "chai";
import { parseStoredSchedule, toScheduleInfo } from "../../lib/schedules/stored-schedule";
import { runsOn } from "../support/targets";

runsOn("single");

const T0 = Date.UTC(2026, 0, 5, 10, 0, 0);
const MINUTE = 60_000;
const DAY = 86_400_000;

/** As the upsert script writes a new `every` schedule at T0 (cjson; keys in any order). */
const fresh = {
  v: 1,
  every: MINUTE,
  tz: "UTC",
  anchor: T0,
  message: "ping",
  priority: 0,
  catchup: "latest",
  catchupWindowMs: DAY,
  overlap: "allow",
  paused: false,
  createdAt: T0,
  updatedAt: T0,
  since: T0,
  next: 0,
  count: 0,
  missed: 0,
  overlapped: 0,
};

describe("stored schedules", () => {
  it("parses every key the scripts write", () => {
    const json = JSON.stringify({
      ...fresh,
      delay: 5,
      priority: 3,
      catchup: "all",
      overlap: "skip",
      startAt: T0,
      endAt: T0 + DAY,
      limit: 10,
      last: T0 + MINUTE,
      lastRunAt: T0 + MINUTE,
      lastSentAt: T0 + MINUTE + 12,
      lastId: "abc",
      next: T0 + 2 * MINUTE,
      count: 2,
      missed: 1,
      overlapped: 4,
    });
    expect(parseStoredSchedule("ping", json)).to.deep.equal({
      name: "ping",
      ...fresh,
      delay: 5,
      priority: 3,
      catchup: "all",
      overlap: "skip",
      startAt: T0,
      endAt: T0 + DAY,
      limit: 10,
      last: T0 + MINUTE,
      lastRunAt: T0 + MINUTE,
      lastSentAt: T0 + MINUTE + 12,
      lastId: "abc",
      next: T0 + 2 * MINUTE,
      count: 2,
      missed: 1,
      overlapped: 4,
    });
  });

  it("reads keys left out as absent or as their defaults, and numbers written as strings as numbers", () => {
    const stored = parseStoredSchedule("n", JSON.stringify({ cron: "0 2 * * *", message: "m", createdAt: String(T0), next: "0" }));
    expect(stored).to.deep.equal({
      name: "n",
      v: 0,
      cron: "0 2 * * *",
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
      next: 0,
      count: 0,
      missed: 0,
      overlapped: 0,
    });
    expect(Object.keys(stored)).to.not.include.members(["every", "anchor", "last", "lastId", "limit"]);
  });

  it("reads paused from a boolean, 1 or '1'; an unknown catchup or overlap as the default", () => {
    for (const paused of [true, 1, "1"]) expect(parseStoredSchedule("p", JSON.stringify({ ...fresh, paused })).paused).to.equal(true);
    for (const paused of [false, 0, "", undefined])
      expect(parseStoredSchedule("p", JSON.stringify({ ...fresh, paused })).paused).to.equal(false);
    const odd = parseStoredSchedule("p", JSON.stringify({ ...fresh, catchup: "some", overlap: 3 }));
    expect(odd).to.include({ catchup: "latest", overlap: "allow" });
  });

  it("refuses a field that is not a JSON object, naming the schedule", () => {
    for (const json of ["", "{", "[]", "null", "5", '"x"']) {
      expect(() => parseStoredSchedule("broken", json), json).to.throw('The stored schedule "broken" is not a JSON object');
    }
  });

  describe("toScheduleInfo", () => {
    it("gives the public view: nulls for what has not happened, no key for an option not set", () => {
      const info = toScheduleInfo(parseStoredSchedule("ping", JSON.stringify({ ...fresh, next: T0 + MINUTE, last: T0 })), T0 + 1);
      expect(info).to.deep.equal({
        name: "ping",
        every: MINUTE,
        tz: "UTC",
        anchor: T0,
        message: "ping",
        priority: 0,
        catchup: "latest",
        catchupWindowMs: DAY,
        overlap: "allow",
        paused: false,
        ended: false,
        createdAt: T0,
        updatedAt: T0,
        lastRunAt: null,
        lastSentAt: null,
        lastId: null,
        nextRunAt: T0 + MINUTE,
        count: 0,
        missed: 0,
        overlapped: 0,
      });
    });

    it("paused: nextRunAt null; ended (next -1): ended and nextRunAt null", () => {
      expect(toScheduleInfo(parseStoredSchedule("p", JSON.stringify({ ...fresh, paused: true, next: T0 + MINUTE })), T0)).to.include({
        paused: true,
        ended: false,
        nextRunAt: null,
      });
      expect(toScheduleInfo(parseStoredSchedule("e", JSON.stringify({ ...fresh, next: -1, count: 3 })), T0)).to.include({
        ended: true,
        nextRunAt: null,
      });
    });

    it("next unknown (0): nextRunAt from the planner: a slot already due reads as itself, else the next slot", () => {
      const due = parseStoredSchedule("d", JSON.stringify(fresh));
      expect(toScheduleInfo(due, T0 + 10).nextRunAt, "the anchor is due").to.equal(T0);
      const later = parseStoredSchedule("l", JSON.stringify({ ...fresh, startAt: T0 + DAY, anchor: T0 + DAY }));
      expect(toScheduleInfo(later, T0 + 10).nextRunAt).to.equal(T0 + DAY);
      const handled = parseStoredSchedule("h", JSON.stringify({ ...fresh, last: T0 }));
      expect(toScheduleInfo(handled, T0 + 10).nextRunAt).to.equal(T0 + MINUTE);
      const cron = parseStoredSchedule(
        "c",
        JSON.stringify({ ...fresh, every: undefined, anchor: undefined, cron: "0 2 * * *", tz: "Europe/Berlin" }),
      );
      expect(toScheduleInfo(cron, T0).nextRunAt, "02:00 CET tomorrow").to.equal(Date.UTC(2026, 0, 6, 1, 0, 0));
      const past = parseStoredSchedule("p", JSON.stringify({ ...fresh, endAt: T0 + MINUTE, last: T0 + MINUTE }));
      expect(toScheduleInfo(past, T0 + 2 * MINUTE), "past endAt, before a firer settled it").to.include({ ended: true, nextRunAt: null });
    });
  });
});
