/**
 * The bench's `purge` part (`node build/bench/run.js --only purge`) on tiny sizes, so its code
 * path cannot rot: each size purged and DELeted in every round, each command found in SLOWLOG,
 * the table. It checks that figures exist, never how fast anything was.
 */
import { expect } from "chai";
import { CONFIGS } from "../../bench/config";
import { measurePurge, purgeTable } from "../../bench/purge";
import type { PurgeResult } from "../../bench/purge";
import { singleServerClient, singleServerOnly, testRedis } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

describe("bench: the purge part (tiny run)", function () {
  this.timeout(30_000);
  let result: PurgeResult;
  let slowlogBefore: Record<string, string>;
  let slowlogAfter: Record<string, string>;

  before(async function () {
    singleServerOnly(this, "the bench runs on one server");
    const client = await singleServerClient();
    try {
      slowlogBefore = await client.configGet("slowlog-*");
      result = await measurePurge(testRedis(), CONFIGS.tiny.purge, () => undefined);
      slowlogAfter = await client.configGet("slowlog-*");
    } finally {
      await client.quit();
    }
  });

  it("measures a purge and a DEL of each size, both found in SLOWLOG", () => {
    expect(result.rows.map((row) => row.messages)).to.deep.equal(CONFIGS.tiny.purge.sizes);
    expect(result.rounds).to.equal(CONFIGS.tiny.purge.rounds);
    for (const row of result.rows) {
      for (const figure of [row.purgeMicros, row.delMicros, row.purgePingMs, row.delPingMs, row.backgroundFreeMs]) {
        expect(figure, JSON.stringify(row)).to.be.at.least(0).and.finite;
      }
    }
  });

  it("leaves the slow log's settings as they were", () => {
    expect(slowlogAfter).to.deep.equal(slowlogBefore);
  });

  it("prints the table with one line per size", () => {
    const table = purgeTable(result);
    expect(table).to.match(/^Emptying a queue: purgeQueue/);
    expect(table.split("\n").filter((line) => line.startsWith("| "))).to.have.length(2 + result.rows.length);
  });
});
