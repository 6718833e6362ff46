/**
 * The bench's `sendbatch` part (`node build/bench/run.js --only sendbatch`) on a tiny run, so its
 * code path cannot rot: every subject stores every message (the part checks the queue's count),
 * gives a figure, and the table has a line per subject. It never checks how fast anything was.
 */
import { expect } from "chai";
import { CONFIGS } from "../../bench/config";
import { measureSendBatch, sendBatchTable } from "../../bench/send-batch";
import type { SendBatchResult } from "../../bench/send-batch";
import { singleServerOnly, testRedis } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single");

describe("bench: the sendbatch part (tiny run)", function () {
  this.timeout(30_000);
  let result: SendBatchResult;

  before(async function () {
    singleServerOnly(this, "the bench runs on one server");
    result = await measureSendBatch(testRedis(), CONFIGS.tiny.sendBatch, () => undefined);
  });

  it("measures each subject", () => {
    expect(Object.keys(result.perSecond).sort()).to.deep.equal([
      "rsmq 0.12.4 sendMessage",
      "rsmq-next sendMessage",
      "rsmq-next sendMessages",
    ]);
    for (const figure of Object.values(result.perSecond)) expect(figure).to.be.above(0).and.finite;
    expect(result.options).to.deep.equal(CONFIGS.tiny.sendBatch);
  });

  it("prints the table with one line per subject", () => {
    const table = sendBatchTable(result);
    expect(table).to.match(/^Sending 300 messages, 50 calls in flight/);
    expect(table.split("\n").filter((line) => line.startsWith("| "))).to.have.length(2 + 3);
  });
});
