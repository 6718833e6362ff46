/**
 * Expirations in the figures (docs/retention.md): the in-process counter
 * `rsmq_messages_expired_total` and `rsmq_dead_letter_messages_total{reason="expired"}` count what
 * this process expired and moved; the queue-state metric `rsmq_queue_expired_messages_total` reads
 * the queue's `totalexpired` from Redis, whoever expired them. Through prom-client's registry.
 */
import { expect } from "chai";
import * as promClient from "prom-client";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { collectMetrics } from "../../lib/telemetry/prometheus";
import { asMessage } from "../support/old-rsmq";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { parseExposition } from "../support/prometheus";
import { plantMessages, setRetention } from "../support/retention";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

describe("Retention: telemetry", () => {
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  let ns: string;

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = new RedisSMQ(connectionOptions(ns));
    client = await plainClient();
  });
  afterEach(async () => {
    await rsmq.quitAsync();
    await client.quit();
  });

  it("counts deletions and moves in process, and totalexpired as a queue-state metric", async () => {
    const registry = new promClient.Registry();
    const handle = collectMetrics(rsmq, { registry, queueState: ["del", "mv"] });
    try {
      await rsmq.createQueueAsync({ qname: "del" });
      await rsmq.createQueueAsync({ qname: "mv" });
      await setRetention(client, ns, "del", 60);
      await setRetention(client, ns, "mv", 60, "mv-expired");
      await plantMessages(client, ns, "del", { count: 3, ageSeconds: 120 });
      await plantMessages(client, ns, "mv", { count: 2, ageSeconds: 120 });
      const [live] = await plantMessages(client, ns, "mv", { count: 1, ageSeconds: 1, prefix: "live", dueInMs: -1000 });
      expect(await rsmq.receiveMessageAsync({ qname: "del" })).to.deep.equal({});
      expect(asMessage(await rsmq.receiveMessageAsync({ qname: "mv" })).id).to.equal(live.id);
      // Expired by someone else (another process): only the queue-state metric sees it.
      await client.hIncrBy(keysOf(ns, "del").hash, "totalexpired", 1);
      const samples = parseExposition(await registry.metrics());
      expect(samples.get('rsmq_messages_expired_total{queue="del"}')).to.equal(3);
      expect(samples.get('rsmq_messages_expired_total{queue="mv"}')).to.equal(2);
      expect(samples.get('rsmq_dead_letter_messages_total{queue="mv",reason="expired"}')).to.equal(2);
      expect(samples.get('rsmq_queue_expired_messages_total{queue="del"}')).to.equal(4);
      expect(samples.get('rsmq_queue_expired_messages_total{queue="mv"}')).to.equal(2);
    } finally {
      handle.stop();
    }
  });
});
