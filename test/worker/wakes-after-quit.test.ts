/**
 * A Worker started on an instance that has quit (a race in a shutdown, a test's cleanup) must not
 * open a wake subscriber connection that nobody would ever close: it would outlive the instance
 * and keep reconnecting, and keep the process alive.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { delay, subscribersOf } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;

describe("Worker: wakes after quitAsync", () => {
  it("opens no subscriber connection on an instance that has quit", async () => {
    const ns = uniqueNs("quitwakes");
    const rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
    await rsmq.quitAsync();
    const worker = new Worker(rsmq, { qname: "q", maxIdleSleepMs: 60_000, handler: () => undefined });
    const errors: Error[] = [];
    worker.on("error", (error) => errors.push(error));
    worker.start();
    const admin = await plainClient();
    try {
      // The wake subscription is tried, and refused at once, without a round trip.
      for (let i = 0; i < 100 && !errors.some((error) => /quit/.test(error.message)); i++) await delay(10);
      expect(errors.map(String).join("\n")).to.match(/quit/);
      expect(await subscribersOf(admin, keysOf(ns, "q").realtimeChannel)).to.equal(0);
    } finally {
      await worker.stop();
      await admin.quit();
    }
  });
});
