/**
 * Who is consuming, across processes: 3 Workers in 2 processes are listed by listConsumersAsync
 * with their host, pid and concurrency (each writes its entry in the looks it makes anyway, here
 * one per 1 s cap). A process killed (SIGKILL) stops beating: its Workers' entries lapse within
 * two caps of their last beat and are no longer listed. A clean stop removes the entries at once.
 */
import { expect } from "chai";
import { hostname } from "os";
import RedisSMQ = require("../../lib/index");
import type { FleetChildConfig } from "../support/fleet-child";
import { Fleet } from "../support/fleet";
import { connectionOptions, uniqueNs } from "../support/server";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single");

const CAP_MS = 1000;

describe("fleet: who is consuming", function () {
  this.timeout(30_000);
  const fleet = new Fleet();
  let rsmq: RedisSMQ;
  let config: FleetChildConfig;

  beforeEach(async () => {
    const ns = uniqueNs("fcons");
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
    config = { connection: connectionOptions(ns), qname: "q", workers: 1, maxIdleSleepMs: CAP_MS };
  });
  afterEach(async () => {
    await fleet.kill();
    await rsmq.quitAsync();
  });

  const consumers = () => rsmq.listConsumersAsync({ qname: "q" });

  it("3 Workers in 2 processes listed with host and pid; a killed process' Workers gone within two caps; a clean stop removes the rest at once", async () => {
    const a = await fleet.start("A", { ...config, workers: 2, concurrency: 4 });
    const b = await fleet.start("B", { ...config, concurrency: 2 });
    let listed = await consumers();
    await waitFor(async () => (listed = await consumers()).length === 3, "3 Workers listed", 3 * CAP_MS);
    expect(listed.map((entry) => [entry.host, entry.pid, entry.concurrency]).sort()).to.deep.equal(
      [
        [hostname(), a.pid, 4],
        [hostname(), a.pid, 4],
        [hostname(), b.pid, 2],
      ].sort(),
    );
    expect(new Set(listed.map((entry) => entry.id)).size).to.equal(3);

    const killedAt = Date.now();
    await b.kill();
    await waitFor(async () => (listed = await consumers()).length === 2, "B's Worker no longer listed", 2 * CAP_MS + 1000);
    // Its entry lives two caps after its last beat, which came before the kill.
    expect(Date.now() - killedAt).to.be.below(2 * CAP_MS + 1000);
    expect(listed.map((entry) => entry.pid)).to.deep.equal([a.pid, a.pid]);

    await a.stop();
    expect(await consumers()).to.deep.equal([]);
  });
});
