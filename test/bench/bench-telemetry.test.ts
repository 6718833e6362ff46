/**
 * The bench's `telemetry` part (`node build/bench/run.js --only telemetry`) on tiny sizes, so its
 * code path cannot rot: every mode measured for send and the Worker, ratios against "off" in the
 * same round, the SDK case recording spans, and the table. It checks that figures exist and are
 * coherent, never how fast anything was.
 */
import { expect } from "chai";
import { measureTelemetry, telemetryTable, TELEMETRY_MODES } from "../../bench/telemetry";
import type { TelemetryResult } from "../../bench/telemetry";
import { singleServerOnly, testRedis } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

describe("bench: the telemetry part (tiny run)", function () {
  this.timeout(60_000);
  let result: TelemetryResult;

  before(async function () {
    singleServerOnly(this, "the bench runs on one server");
    result = await measureTelemetry(testRedis(), { messages: 20, rounds: 1 }, () => undefined);
  });

  it("measures send and the Worker in every mode, against telemetry off", () => {
    expect(result.rows.map((row) => `${row.what} ${row.mode}`)).to.deep.equal(
      TELEMETRY_MODES.flatMap((mode) => [`send ${mode}`, `Worker ${mode}`]),
    );
    for (const row of result.rows) {
      expect(row.perSecond, row.key).to.be.greaterThan(0);
      expect(row.ratioToOff, row.key).to.be.finite;
      if (row.mode === "off") expect(row.ratioToOff, row.key).to.equal(1);
    }
  });

  it("the SDK case records spans: a send and a process span per message at least", () => {
    // One round of 20 sends and 20 processed messages, after a warm-up that is not counted.
    expect(result.spansRecorded).to.be.at.least(2 * 20);
  });

  it("prints the table with one line per case", () => {
    const table = telemetryTable(result);
    expect(table).to.match(/^What telemetry costs/);
    expect(table.split("\n").filter((line) => line.startsWith("| "))).to.have.length(2 + result.rows.length);
  });
});
