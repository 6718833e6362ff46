/**
 * Duplicates in the figures (docs/idempotent-sends.md): `rsmq_messages_deduplicated_total` counts
 * the sends whose dedupId was taken, and they are not counted as messages sent. Through the
 * observed send path (telemetry on) and prom-client's registry.
 */
import { expect } from "chai";
import * as promClient from "prom-client";
import RedisSMQ = require("../../lib/index");
import { collectMetrics } from "../../lib/telemetry/prometheus";
import { connectionOptions, uniqueNs } from "../support/server";
import { parseExposition } from "../support/prometheus";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

describe("Idempotent sends: telemetry", () => {
  let rsmq: RedisSMQ;

  beforeEach(() => {
    rsmq = new RedisSMQ(connectionOptions(uniqueNs("dedup-telemetry")));
  });
  afterEach(async () => {
    await rsmq.quitAsync();
  });

  it("counts duplicates apart from the messages sent, and the duplicate still answers the first id", async () => {
    const registry = new promClient.Registry();
    const handle = collectMetrics(rsmq, { registry });
    try {
      await rsmq.createQueueAsync({ qname: "jobs" });
      const first = await rsmq.sendMessageAsync({ qname: "jobs", message: "a", dedupId: "k" });
      expect(await rsmq.sendMessageAsync({ qname: "jobs", message: "a", dedupId: "k" })).to.equal(first);
      expect(await rsmq.sendMessageAsync({ qname: "jobs", message: "a", dedupId: true })).to.not.equal(first);
      expect(await rsmq.sendMessageAsync({ qname: "jobs", message: "a", dedupId: true })).to.not.equal(first);
      const samples = parseExposition(await registry.metrics());
      expect(samples.get('rsmq_messages_deduplicated_total{queue="jobs"}')).to.equal(2);
      expect(samples.get('messaging_client_sent_messages_total{queue="jobs"}')).to.equal(2);
    } finally {
      handle.stop();
    }
  });

  it("a batch's duplicates too: each counted, each told by a `duplicate` event with its dedupId", async () => {
    const registry = new promClient.Registry();
    const handle = collectMetrics(rsmq, { registry });
    const told: unknown[] = [];
    rsmq.on("duplicate", (duplicate) => told.push(duplicate));
    try {
      await rsmq.createQueueAsync({ qname: "jobs" });
      const first = await rsmq.sendMessageAsync({ qname: "jobs", message: "a", dedupId: "k" });
      const results = await rsmq.sendMessagesAsync({
        qname: "jobs",
        messages: [{ message: "a", dedupId: "k" }, { message: "b" }, { message: "c", dedupId: "n" }, { message: "c", dedupId: "n" }],
      });
      expect(results.map((result) => result.duplicate)).to.deep.equal([true, false, false, true]);
      expect(told).to.deep.equal([
        { qname: "jobs", id: first, dedupId: "k" },
        { qname: "jobs", id: results[2].id, dedupId: "n" },
      ]);
      const samples = parseExposition(await registry.metrics());
      expect(samples.get('rsmq_messages_deduplicated_total{queue="jobs"}')).to.equal(2);
      expect(samples.get('messaging_client_sent_messages_total{queue="jobs"}')).to.equal(3);
    } finally {
      handle.stop();
    }
  });
});
