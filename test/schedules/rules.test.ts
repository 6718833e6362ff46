/**
 * upsertSchedule's option rules (lib/schedules/schedule-rules.ts): the definition they normalise,
 * and every bad option refused with an invalidValue that names it, before any round trip. Pure:
 * no Redis.
 */
import { expect } from "chai";
import { execFileSync } from "child_process";
import * as path from "path";
import { scheduleTimingKey, validateSchedule, validateScheduleName } from "../../lib/schedules/schedule-rules";
import type { UpsertScheduleOptions } from "../../lib/types/schedules";
import { runsOn } from "../support/targets";

runsOn("single");

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const DAY = 86_400_000;

/** The error `validateSchedule(options)` throws; fails the test when it throws none. */
function refusal(options: Partial<UpsertScheduleOptions>): Error & { code?: string } {
  try {
    validateSchedule(options, NOW);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`accepted ${JSON.stringify(options)}`);
}

describe("schedule option rules", () => {
  const every: Partial<UpsertScheduleOptions> = { qname: "q", name: "ping", every: 60_000, message: "ping" };
  const cron: Partial<UpsertScheduleOptions> = { qname: "q", name: "nightly", cron: "0 2 * * *", message: "{}" };

  it("normalises an every schedule: defaults filled, tz UTC, Dates as epoch ms", () => {
    const startAt = new Date(NOW + DAY);
    expect(validateSchedule({ ...every, startAt, endAt: NOW + 2 * DAY }, NOW)).to.deep.equal({
      name: "ping",
      every: 60_000,
      tz: "UTC",
      message: "ping",
      priority: 0,
      catchup: "latest",
      catchupWindowMs: DAY,
      overlap: "allow",
      startAt: NOW + DAY,
      endAt: NOW + 2 * DAY,
    });
  });

  it("normalises a cron schedule: its zone kept, its fields separated by one space, every option taken", () => {
    const options = {
      ...cron,
      cron: "  0   2 * * * ",
      tz: "Europe/Berlin",
      delay: 30,
      priority: 9,
      catchup: "all" as const,
      catchupWindowMs: 3_600_000,
      overlap: "skip" as const,
      limit: 5,
    };
    expect(validateSchedule(options, NOW)).to.deep.equal({
      name: "nightly",
      cron: "0 2 * * *",
      tz: "Europe/Berlin",
      message: "{}",
      delay: 30,
      priority: 9,
      catchup: "all",
      catchupWindowMs: 3_600_000,
      overlap: "skip",
      limit: 5,
    });
  });

  it("takes the bounds: every 1000 ms and 366 days, 6-field cron, delay 0 and 9999999, an empty message", () => {
    expect(validateSchedule({ ...every, every: 1000 }, NOW).every).to.equal(1000);
    expect(validateSchedule({ ...every, every: 366 * DAY }, NOW).every).to.equal(366 * DAY);
    expect(validateSchedule({ ...cron, cron: "*/10 * * * * *" }, NOW).cron).to.equal("*/10 * * * * *");
    expect(validateSchedule({ ...every, delay: 0 }, NOW).delay).to.equal(0);
    expect(validateSchedule({ ...every, delay: 9_999_999 }, NOW).delay).to.equal(9_999_999);
    expect(validateSchedule({ ...every, message: "" }, NOW).message).to.equal("");
    expect(validateSchedule({ ...cron, tz: "America/Argentina/Buenos_Aires" }, NOW).tz).to.equal("America/Argentina/Buenos_Aires");
    expect(validateSchedule({ ...cron, tz: "Etc/GMT+2" }, NOW).tz).to.equal("Etc/GMT+2");
    expect(validateSchedule({ ...every, catchupWindowMs: 1000 }, NOW).catchupWindowMs).to.equal(1000);
    expect(validateSchedule({ ...every, limit: 1e9 }, NOW).limit).to.equal(1e9);
    expect(validateSchedule({ ...every, name: "a".repeat(100) }, NOW).name).to.have.length(100);
    expect(validateSchedule({ ...every, name: "Daily_report.v2:eu-west" }, NOW).name).to.equal("Daily_report.v2:eu-west");
  });

  const refused: Array<[string, Partial<UpsertScheduleOptions>, string]> = [
    ["name missing", { ...every, name: undefined }, "`name`"],
    ["name with a space", { ...every, name: "a b" }, "`name`"],
    ["name empty", { ...every, name: "" }, "`name`"],
    ["name of 101", { ...every, name: "a".repeat(101) }, "`name`"],
    ["name not a string", { ...every, name: 5 as unknown as string }, "`name`"],
    ["neither every nor cron", { qname: "q", name: "n", message: "m" }, "neither"],
    ["both every and cron", { ...every, cron: "0 2 * * *" }, "both"],
    ["every below a second", { ...every, every: 999 }, "`every`"],
    ["every above 366 days", { ...every, every: 366 * DAY + 1 }, "`every`"],
    ["every fractional", { ...every, every: 1500.5 }, "`every`"],
    ["every as a string", { ...every, every: "60000" as unknown as number }, "`every`"],
    ["tz with every", { ...every, tz: "UTC" }, "`tz`"],
    ["unknown zone", { ...cron, tz: "Mars/Olympus" }, "`tz`"],
    ["empty zone", { ...cron, tz: "" }, "`tz`"],
    ["an offset for a zone", { ...cron, tz: "+02:00" }, "`tz`"],
    ["a zone not a string", { ...cron, tz: 2 as unknown as string }, "`tz`"],
    ["cron of 4 fields", { ...cron, cron: "0 2 * *" }, "`cron`"],
    ["cron of 7 fields", { ...cron, cron: "0 0 2 * * * 2027" }, "`cron`"],
    ["cron empty", { ...cron, cron: "   " }, "`cron`"],
    ["cron out of range", { ...cron, cron: "0 25 * * *" }, "`cron`"],
    ["cron garbage", { ...cron, cron: "a b c d e" }, "`cron`"],
    ["cron that never runs", { ...cron, cron: "0 0 30 2 *" }, "`cron`"],
    ["cron not a string", { ...cron, cron: 5 as unknown as string }, "`cron`"],
    ["message missing", { ...every, message: undefined }, "`message`"],
    ["message a number", { ...every, message: 5 as unknown as string }, "`message`"],
    ["delay negative", { ...every, delay: -1 }, "`delay`"],
    ["delay too long", { ...every, delay: 10_000_000 }, "`delay`"],
    ["delay fractional", { ...every, delay: 1.5 }, "`delay`"],
    ["priority 10", { ...every, priority: 10 }, "priority"],
    ["priority fractional", { ...every, priority: 1.5 }, "priority"],
    ["catchup unknown", { ...every, catchup: "some" as "all" }, "`catchup`"],
    ["overlap unknown", { ...every, overlap: "queue" as "skip" }, "`overlap`"],
    ["catchupWindowMs below a second", { ...every, catchupWindowMs: 999 }, "`catchupWindowMs`"],
    ["catchupWindowMs above 366 days", { ...every, catchupWindowMs: 366 * DAY + 1 }, "`catchupWindowMs`"],
    ["startAt negative", { ...every, startAt: -1 }, "`startAt`"],
    ["startAt an invalid Date", { ...every, startAt: new Date(NaN) }, "`startAt`"],
    ["startAt an ISO string", { ...every, startAt: "2026-06-01T00:00:00Z" as unknown as number }, "`startAt`"],
    ["endAt fractional", { ...every, endAt: NOW + 0.5 }, "`endAt`"],
    ["endAt equal to startAt", { ...every, startAt: NOW, endAt: NOW }, "`endAt`"],
    ["endAt before startAt", { ...every, startAt: new Date(NOW), endAt: new Date(NOW - 1) }, "`endAt`"],
    ["limit 0", { ...every, limit: 0 }, "`limit`"],
    ["limit above 1e9", { ...every, limit: 1e9 + 1 }, "`limit`"],
    ["limit fractional", { ...every, limit: 2.5 }, "`limit`"],
  ];
  for (const [what, options, named] of refused) {
    it(`refuses ${what}, naming the option`, () => {
      const error = refusal(options);
      expect(error.name).to.equal("invalidValue");
      expect(error.code).to.equal("ERR_RSMQ_NEXT_INVALID_VALUE");
      expect(error.message).to.include(named);
    });
  }

  it("says what it got: the value and its type", () => {
    expect(refusal({ ...every, every: 999 }).message).to.equal(
      "Expected `every` to be a whole number of ms from 1000 to 31622400000, got 999 (number)",
    );
    expect(refusal({ ...every, catchup: "some" as "all" }).message).to.equal(
      'Expected `catchup` to be "latest" or "all" or "none", got "some" (string)',
    );
    expect(refusal({ ...cron, cron: "0 2 * *" }).message).to.include('got "0 2 * *" (4 fields)');
  });

  it("validateScheduleName takes 1 to 100 of [A-Za-z0-9_.:-] and refuses the rest", () => {
    expect(validateScheduleName("a.b:c-d_e")).to.equal("a.b:c-d_e");
    for (const bad of ["", "a/b", "a b", "ä", "a".repeat(101), undefined, null, 1]) {
      expect(() => validateScheduleName(bad), String(bad))
        .to.throw(/`name`/)
        .with.property("name", "invalidValue");
    }
  });

  it("the timing key changes with every, cron, tz and startAt, and with nothing else", () => {
    const key = (options: Partial<UpsertScheduleOptions>): string => scheduleTimingKey(validateSchedule(options, NOW));
    const base = key(every);
    expect(key({ ...every, message: "other", priority: 3, catchup: "none", overlap: "skip", limit: 3, endAt: NOW + DAY })).to.equal(base);
    expect(key({ ...every, every: 60_001 })).to.not.equal(base);
    expect(key({ ...every, startAt: NOW })).to.not.equal(base);
    const cronKey = key(cron);
    expect(key({ ...cron, cron: " 0  2 * * *" }), "spacing").to.equal(cronKey);
    expect(key({ ...cron, tz: "UTC" }), "the default zone").to.equal(cronKey);
    expect(key({ ...cron, tz: "Europe/Berlin" })).to.not.equal(cronKey);
    expect(key({ ...cron, cron: "0 3 * * *" })).to.not.equal(cronKey);
  });

  describe("without croner installed", () => {
    /** Runs `code` in a node whose require cannot find croner; returns what it printed. */
    function withoutCroner(code: string): string {
      const hide = `const Module = require("module"); const resolve = Module._resolveFilename;
        Module._resolveFilename = function (request, ...rest) {
          if (request === "croner") { const e = new Error("Cannot find module 'croner'"); e.code = "MODULE_NOT_FOUND"; throw e; }
          return resolve.call(this, request, ...rest);
        };`;
      const rules = JSON.stringify(path.join(__dirname, "../../lib/schedules/schedule-rules.js"));
      return execFileSync(process.execPath, ["-e", `${hide}\nconst { validateSchedule } = require(${rules});\n${code}`], {
        encoding: "utf8",
      });
    }

    it("a cron schedule is refused with an invalidValue that says to install croner", () => {
      const printed = withoutCroner(`
        try { validateSchedule({ name: "n", cron: "0 2 * * *", message: "m" }, Date.now()); console.log("accepted"); }
        catch (e) { console.log(JSON.stringify({ name: e.name, message: e.message, code: e.code })); }`);
      expect(JSON.parse(printed)).to.deep.equal({
        name: "invalidValue",
        message: "cron schedules need the package croner: npm install croner",
        code: "ERR_RSMQ_NEXT_INVALID_VALUE",
      });
    });

    it("an every schedule never needs it", () => {
      const printed = withoutCroner(`console.log(validateSchedule({ name: "n", every: 5000, message: "m" }, Date.now()).every);`);
      expect(printed.trim()).to.equal("5000");
    });
  });
});
