/**
 * The bench's `rate-limit` part (`node build/bench/run.js --only rate-limit`) on tiny sizes, so its
 * code path cannot rot: the Worker at each concurrency with no limit and with a limit that does
 * not bind, ratios against no limit in the same round, and the table. It checks that figures
 * exist and are coherent, never how fast anything was.
 */
import { expect } from "chai";
import { measureRateLimitCost, rateLimitTable, RATE_LIMIT_MODES } from "../../bench/rate-limit-cost";
import type { RateLimitResult } from "../../bench/rate-limit-cost";
import { singleServerOnly, testRedis } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

describe("bench: the rate-limit part (tiny run)", function () {
  this.timeout(60_000);
  let result: RateLimitResult;

  before(async function () {
    singleServerOnly(this, "the bench runs on one server");
    result = await measureRateLimitCost(testRedis(), { messages: 20, rounds: 1 }, () => undefined);
  });

  it("measures the Worker at 1 and 50 with and without a limit, against no limit", () => {
    expect(result.rows.map((row) => row.key)).to.deep.equal(
      [1, 50].flatMap((concurrency) => RATE_LIMIT_MODES.map((mode) => `Worker C=${concurrency} ${mode}`)),
    );
    for (const row of result.rows) {
      expect(row.perSecond, row.key).to.be.greaterThan(0);
      expect(row.ratioToNone, row.key).to.be.finite;
      if (row.mode === "no limit") expect(row.ratioToNone, row.key).to.equal(1);
    }
  });

  it("prints the table with one line per case", () => {
    const table = rateLimitTable(result);
    expect(table).to.match(/^What a rate limit that does not bind costs a Worker/);
    expect(table.split("\n").filter((line) => line.startsWith("| "))).to.have.length(2 + result.rows.length);
  });
});
