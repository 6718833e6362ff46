/**
 * The bench's `controls` part (`node build/bench/run.js --only controls`) on tiny sizes, so its
 * code path cannot rot: the Worker at each concurrency with no limit, with a rate limit and with a
 * concurrency limit that do not bind, ratios against no limit in the same round, and the table.
 * It checks that figures exist and are coherent, never how fast anything was.
 */
import { expect } from "chai";
import { measureControlsCost, controlsTable, CONTROL_MODES } from "../../bench/controls-cost";
import type { ControlsResult } from "../../bench/controls-cost";
import { singleServerOnly, testRedis } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

describe("bench: the controls part (tiny run)", function () {
  this.timeout(60_000);
  let result: ControlsResult;

  before(async function () {
    singleServerOnly(this, "the bench runs on one server");
    result = await measureControlsCost(testRedis(), { messages: 20, rounds: 1 }, () => undefined);
  });

  it("measures the Worker at 1 and 50 with no limit and with each control, against no limit", () => {
    expect(result.rows.map((row) => row.key)).to.deep.equal(
      [1, 50].flatMap((concurrency) => CONTROL_MODES.map((mode) => `Worker C=${concurrency} ${mode}`)),
    );
    for (const row of result.rows) {
      expect(row.perSecond, row.key).to.be.greaterThan(0);
      expect(row.ratioToNone, row.key).to.be.finite;
      if (row.mode === "no limit") expect(row.ratioToNone, row.key).to.equal(1);
    }
  });

  it("prints the table with one line per case", () => {
    const table = controlsTable(result);
    expect(table).to.match(/^What a control that does not bind costs a Worker/);
    expect(table.split("\n").filter((line) => line.startsWith("| "))).to.have.length(2 + result.rows.length);
  });
});
