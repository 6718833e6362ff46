/**
 * A master killed with its replication in flight (no pause, no catching up first), while producers
 * that ask for `waitForReplicas: 1` send: a send resolves only once a replica has it, so the replica
 * promoted in place of the dead master holds every acknowledged send, and none is lost. (Without
 * the option, Redis' asynchronous replication can lose the last writes a master acknowledged; the
 * docs/cluster.md says so.) Prints a one-line summary.
 */
import { expect } from "chai";
import RedisSMQ = require("../../../lib");
import { startTestCluster } from "../../support/cluster";
import type { TestCluster } from "../../support/cluster";
import { DeliveryLedger, Producer, queueNamesPerMaster } from "../../support/cluster-tools";
import { keysOf, onCluster, uniqueNs } from "../../support/server";
import { delay, waitFor } from "../../support/worker";
import { runsOn } from "../../support/targets";

runsOn("cluster");

const { Worker } = RedisSMQ;

describe("cluster: failover with replication in flight, producers on waitForReplicas", function () {
  this.timeout(120_000);
  let cluster: TestCluster;
  const instances: RedisSMQ[] = [];

  before(async function () {
    if (!onCluster()) this.skip();
    this.timeout(60_000);
    cluster = await startTestCluster();
  });
  after(async () => {
    for (const instance of instances) await instance.quitAsync().catch(() => undefined);
    await cluster?.close();
  });

  function open(ns: string, extra: Partial<RedisSMQ.ConstructorOptions> = {}): RedisSMQ {
    const rsmq = new RedisSMQ({ cluster: { rootNodes: cluster.rootNodes() }, ns, ...extra } as RedisSMQ.ConstructorOptions);
    rsmq.on("error", () => undefined);
    instances.push(rsmq);
    return rsmq;
  }

  it("loses no acknowledged send", async () => {
    const ns = uniqueNs();
    const masters = await cluster.masters();
    const qnames = (await queueNamesPerMaster(cluster, ns, masters)).map(([qname]) => qname);
    const admin = open(ns);
    for (const qname of qnames) await admin.createQueueAsync({ qname, vt: 5 });

    const ledger = new DeliveryLedger();
    const consumer = open(ns);
    const workers = qnames.map((qname) => {
      const worker = new Worker(consumer, {
        qname,
        concurrency: 4,
        maxIdleSleepMs: 1_000,
        stopTimeoutMs: 5_000,
        handler: (message) => ledger.handled(message),
      });
      worker.on("error", () => undefined);
      return worker.start();
    });
    const acked = { waitForReplicas: 1, waitForReplicasMs: 2_000 };
    const producers = [
      new Producer(open(ns, acked), qnames, ledger, "a", 1),
      new Producer(open(ns, acked), [...qnames].reverse(), ledger, "b", 1),
    ];
    try {
      await waitFor(() => ledger.sent.size >= 150, "150 sends before the kill");
      const { killed, promoted } = await cluster.killMasterAndWaitForFailover(cluster.slotOf(keysOf(ns, qnames[0]).hash), {
        syncReplicasFirst: false,
      });
      expect(promoted.id).to.not.equal(masters[0].id);
      // The promoted master has no replica until the dead node comes back as one: until then a send
      // to its queue waits for a confirmation (up to waitForReplicasMs, then replicationTimeout).
      await cluster.restartNode(killed);
      const rejoinedAt = Date.now();
      await waitFor(
        () => ledger.sentAfter(rejoinedAt, qnames[0]) >= 50,
        "50 sends to the failed-over queue after its new replica joined",
        20_000,
      );
      await delay(500);
      await Promise.all(producers.map((producer) => producer.stop()));
      await waitFor(() => ledger.lost().length === 0, "every acknowledged send handled", 30_000).catch(() => undefined);
      const unconfirmed = ledger.sendErrors.filter((error) => error.name === "replicationTimeout").length;
      console.log(`      ${ledger.summary("failover, replication in flight, waitForReplicas 1")} (${unconfirmed} replicationTimeout)`);
      expect(ledger.lost(), "acknowledged sends never handled").to.deep.equal([]);
      expect(ledger.bodiesMatch()).to.equal(true);
    } finally {
      await Promise.all(producers.map((producer) => producer.stop()));
      await Promise.all(workers.map((worker) => worker.stop()));
    }
  });
});
