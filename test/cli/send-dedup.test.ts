/** `rsmq-next send --dedup-id`: a repeat stores nothing and prints the first id (docs/idempotent-sends.md). */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, uniqueNs } from "../support/server";
import { at, json, runCli } from "../support/cli";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

describe("CLI: send --dedup-id", () => {
  let ns: string;
  let rsmq: RedisSMQ;

  beforeEach(async () => {
    ns = uniqueNs("cli-dedup");
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => rsmq.quitAsync());

  it("a repeat prints the first id, says duplicate in --json, and stores nothing", async () => {
    const first = await runCli([...at(ns), "send", "q", "hello", "--dedup-id", "order-1"]);
    expect(first.code).to.equal(0);
    const id = first.stdout.trim();
    const again = await runCli([...at(ns), "--json", "send", "q", "hello", "--dedup-id", "order-1"]);
    expect(again.code).to.equal(0);
    expect(json(again)).to.deep.equal({ qname: "q", id, duplicate: true });
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(1);
  });

  it("refuses a dedup id over 128 characters, with the library's message, sending nothing", async () => {
    const result = await runCli([...at(ns), "send", "q", "x", "--dedup-id", "x".repeat(129)]);
    expect(result.code).to.not.equal(0);
    expect(result.stderr).to.include("dedupId must be a string of 1 to 128 characters");
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);
  });
});
