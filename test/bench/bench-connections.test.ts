/**
 * The bench's `connections` part (`node build/bench/run.js --only connections`) on tiny sizes, so
 * its code path cannot rot: every case measured, ratios against the rsmq 0.12.4 rows of the same
 * round, and the table. It checks that figures exist and are coherent, never how fast anything was.
 */
import { expect } from "chai";
import { connectionsTable, measureConnections } from "../../bench/connections";
import type { ConnectionsResult } from "../../bench/connections";
import { singleServerOnly, testRedis } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

describe("bench: the connections part (tiny run)", function () {
  this.timeout(60_000);
  let result: ConnectionsResult;

  before(async function () {
    singleServerOnly(this, "the bench runs on one server");
    result = await measureConnections(testRedis(), { messages: 20, rounds: 1, counts: [1, 2] }, () => undefined);
  });

  it("measures rsmq 0.12.4, the default and every connection count for send, receive+delete and the Worker", () => {
    expect(result.rows.map((row) => `${row.kind} ${row.library}`)).to.deep.equal([
      "send rsmq 0.12.4",
      "receive+delete rsmq 0.12.4",
      "send rsmq-next, default (1, 2nd on demand)",
      "receive+delete rsmq-next, default (1, 2nd on demand)",
      "Worker rsmq-next, default (1, 2nd on demand)",
      "send rsmq-next, 1 connection",
      "receive+delete rsmq-next, 1 connection",
      "Worker rsmq-next, 1 connection",
      "send rsmq-next, 2 connections",
      "receive+delete rsmq-next, 2 connections",
      "Worker rsmq-next, 2 connections",
    ]);
    for (const row of result.rows) {
      expect(row.perSecond, row.key).to.be.greaterThan(0);
      expect(row.ratioToRsmq, row.key).to.be.finite;
      if (row.library === "rsmq 0.12.4") expect(row.ratioToRsmq, row.key).to.equal(1);
    }
    expect(result.loadBefore).to.have.length(3);
  });

  it("prints the table with one line per case", () => {
    const table = connectionsTable(result);
    expect(table).to.match(/^Why the default of `connections`/);
    // The header, the rule under it, then one row per case.
    expect(table.split("\n").filter((line) => line.startsWith("| "))).to.have.length(2 + result.rows.length);
  });
});
