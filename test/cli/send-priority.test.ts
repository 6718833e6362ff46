/** `rsmq-next send --priority`: a larger priority is received first (docs/priorities.md); a bad one is a usage error. */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { asMessage } from "../support/old-rsmq";
import { connectionOptions, uniqueNs } from "../support/server";
import { at, runCli } from "../support/cli";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

describe("CLI: send --priority", () => {
  let ns: string;
  let rsmq: RedisSMQ;

  beforeEach(async () => {
    ns = uniqueNs("cli-priority");
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => rsmq.quitAsync());

  it("a message sent with --priority 9 is received before one sent earlier without", async () => {
    expect((await runCli([...at(ns), "send", "q", "plain"])).code).to.equal(0);
    const urgent = await runCli([...at(ns), "send", "q", "urgent", "--priority", "9"]);
    expect(urgent.code).to.equal(0);
    const first = asMessage(await rsmq.receiveMessageAsync({ qname: "q" }));
    expect(first).to.include({ id: urgent.stdout.trim(), message: "urgent" });
  });

  it("--priority 10 is a usage error (exit 2) that names the range, and sends nothing", async () => {
    const result = await runCli([...at(ns), "send", "q", "x", "--priority", "10"]);
    expect(result.code).to.equal(2);
    expect(result.stderr).to.include("--priority").and.include("from 0 to 9");
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);
  });
});
