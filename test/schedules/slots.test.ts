/**
 * A schedule's slots (lib/schedules/slots.ts): `every` slots are anchor + k * every, computed
 * exactly at any distance from the anchor; cron slots come from croner in the schedule's zone.
 * Pure: no Redis.
 */
import { expect } from "chai";
import { firstSlotFrom, slotPeriodMs } from "../../lib/schedules/slots";
import type { ScheduleTiming } from "../../lib/schedules/slots";
import { runsOn } from "../support/targets";

runsOn("single");

const ANCHOR = Date.UTC(2026, 0, 1, 0, 0, 0, 123);
const EVERY = 7_777;

describe("schedule slots", () => {
  const every: ScheduleTiming = { every: EVERY, tz: "UTC", anchor: ANCHOR };

  it("an every slot is anchor + k * every: the first at or after a time, inclusive", () => {
    expect(firstSlotFrom(every, ANCHOR)).to.equal(ANCHOR);
    expect(firstSlotFrom(every, ANCHOR + 1)).to.equal(ANCHOR + EVERY);
    expect(firstSlotFrom(every, ANCHOR + EVERY)).to.equal(ANCHOR + EVERY);
    expect(firstSlotFrom(every, ANCHOR + EVERY - 1)).to.equal(ANCHOR + EVERY);
    expect(firstSlotFrom(every, ANCHOR - 5 * EVERY), "none before the anchor").to.equal(ANCHOR);
  });

  it("every slot of 10,000 lies exactly on anchor + k * every, from any time before it: no drift", () => {
    let from = ANCHOR;
    for (let k = 0; k < 10_000; k++) {
      const slot = firstSlotFrom(every, from);
      expect(slot).to.equal(ANCHOR + k * EVERY);
      // The next search starts anywhere after this slot, as a late firer's would.
      from = slot! + 1 + ((k * 7919) % (EVERY - 1));
    }
    const far = ANCHOR + 1_000_000_000 * 1000;
    expect((firstSlotFrom({ every: 1000, tz: "UTC", anchor: ANCHOR }, far)! - ANCHOR) % 1000, "a billion slots on").to.equal(0);
  });

  it("startAt and endAt bound the slots (both inclusive); endAt past the last gives null", () => {
    const bounded: ScheduleTiming = { ...every, startAt: ANCHOR + 3 * EVERY, endAt: ANCHOR + 5 * EVERY };
    expect(firstSlotFrom(bounded, ANCHOR)).to.equal(ANCHOR + 3 * EVERY);
    expect(firstSlotFrom(bounded, ANCHOR + 5 * EVERY)).to.equal(ANCHOR + 5 * EVERY);
    expect(firstSlotFrom(bounded, ANCHOR + 5 * EVERY + 1)).to.equal(null);
  });

  it("the period of an every slot is every", () => {
    expect(slotPeriodMs(every, ANCHOR + 9 * EVERY)).to.equal(EVERY);
  });

  it("a cron slot is the first match at or after a time, inclusive, read in the zone", () => {
    const daily: ScheduleTiming = { cron: "0 9 * * *", tz: "Europe/Berlin" };
    const nine = Date.UTC(2026, 0, 15, 8, 0, 0); // 09:00 CET
    expect(firstSlotFrom(daily, nine)).to.equal(nine);
    expect(firstSlotFrom(daily, nine - 1)).to.equal(nine);
    expect(firstSlotFrom(daily, nine + 1)).to.equal(nine + 86_400_000);
    expect(firstSlotFrom({ cron: "0 9 * * *", tz: "UTC" }, nine)).to.equal(nine + 3_600_000);
    expect(slotPeriodMs(daily, nine)).to.equal(86_400_000);
    expect(firstSlotFrom({ ...daily, endAt: nine + 86_399_999 }, nine + 1)).to.equal(null);
    expect(firstSlotFrom({ ...daily, startAt: nine + 1 }, nine)).to.equal(nine + 86_400_000);
  });

  it("6-field cron counts seconds", () => {
    const tenSeconds: ScheduleTiming = { cron: "*/10 * * * * *", tz: "UTC" };
    const at = Date.UTC(2026, 0, 15, 8, 0, 0);
    expect(firstSlotFrom(tenSeconds, at + 1)).to.equal(at + 10_000);
    expect(slotPeriodMs(tenSeconds, at)).to.equal(10_000);
  });

  it("a cron pattern with no later slot is a fault: it throws, naming the pattern, rather than stop or loop", () => {
    // validateSchedule refuses such a pattern; a stored one reaching the planner must not end the schedule silently.
    const never: ScheduleTiming = { cron: "0 0 30 2 *", tz: "UTC" };
    expect(() => firstSlotFrom(never, ANCHOR)).to.throw('croner found no slot of "0 0 30 2 *" (UTC) after');
    expect(() => slotPeriodMs(never, ANCHOR)).to.throw("where one must exist");
  });
});
