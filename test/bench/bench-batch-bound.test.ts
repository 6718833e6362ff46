/**
 * The bench's `batch-bound` part (`node build/bench/run.js --only batch-bound`) for one round, so
 * its code path cannot rot: every call of every shape measured, the slow log's settings restored,
 * the table. It checks that figures exist and what each call handled, never how fast anything was.
 */
import { expect } from "chai";
import { CONFIGS } from "../../bench/config";
import { batchBoundTable, measureBatchBound } from "../../bench/batch-bound";
import type { BatchBoundResult } from "../../bench/batch-bound";
import { MAX_BATCH_BYTES } from "../../lib/operations/batch-bytes";
import { singleServerClient, singleServerOnly, testRedis } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

describe("bench: the batch-bound part (one round)", function () {
  this.timeout(60_000);
  let result: BatchBoundResult;
  let slowlogBefore: Record<string, string>;
  let slowlogAfter: Record<string, string>;

  before(async function () {
    singleServerOnly(this, "the bench runs on one server");
    const client = await singleServerClient();
    try {
      slowlogBefore = await client.configGet("slowlog-*");
      result = await measureBatchBound(testRedis(), CONFIGS.tiny.batchBound, () => undefined);
      slowlogAfter = await client.configGet("slowlog-*");
    } finally {
      await client.quit();
    }
  });

  it("measures every call of every shape, none carrying more bodies than the bound", () => {
    expect(result.rows).to.have.length(25);
    for (const row of result.rows) {
      expect(row.bodyBytes, JSON.stringify(row)).to.be.at.most(MAX_BATCH_BYTES);
      expect(row.maxMicros, JSON.stringify(row)).to.be.at.least(0).and.finite;
    }
  });

  it("leaves the slow log's settings as they were", () => {
    expect(slowlogAfter).to.deep.equal(slowlogBefore);
  });

  it("prints the table with one line per call and shape", () => {
    const table = batchBoundTable(result);
    expect(table.split("\n").filter((line) => line.startsWith("| "))).to.have.length(2 + result.rows.length);
  });
});
