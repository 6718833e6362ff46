/**
 * The wait a priority message is counted with (`rsmq_message_wait_duration_seconds`, docs/
 * priorities.md): from its send time, not from its score 10^12 ms per level back.
 */
import { expect } from "chai";
import * as promClient from "prom-client";
import RedisSMQ = require("../../lib/index");
import { collectMetrics } from "../../lib/telemetry/prometheus";
import { asMessage } from "../support/old-rsmq";
import { connectionOptions, uniqueNs } from "../support/server";
import { parseExposition } from "../support/prometheus";
import { Cleanup } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

describe("Priorities: the wait metric", () => {
  const cleanup = new Cleanup();
  let rsmq: RedisSMQ;

  beforeEach(async () => {
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(uniqueNs("prio"))));
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => cleanup.run());

  it("receive, batch receive and pop count a priority message's wait from its send time", async () => {
    const registry = new promClient.Registry();
    const handle = collectMetrics(rsmq, { registry });
    try {
      for (const priority of [9, 5, 1]) await rsmq.sendMessageAsync({ qname: "q", message: `p${priority}`, priority });
      expect(asMessage(await rsmq.receiveMessageAsync({ qname: "q" })).message).to.equal("p9");
      expect((await rsmq.receiveMessagesAsync({ qname: "q", count: 1 })).messages.map((m) => m.message)).to.deep.equal(["p5"]);
      expect(asMessage(await rsmq.popMessageAsync({ qname: "q" })).message).to.equal("p1");
      const samples = parseExposition(await registry.metrics());
      expect(samples.get('rsmq_message_wait_duration_seconds_count{queue="q"}')).to.equal(3);
      // Seconds at most, where the score would make it 3.2e8 s (level 1) or more.
      expect(samples.get('rsmq_message_wait_duration_seconds_sum{queue="q"}')).to.be.within(0, 30);
    } finally {
      handle.stop();
    }
  });
});
