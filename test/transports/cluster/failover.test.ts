/**
 * A master failover under load, on a cluster of its own: two producers send to three queues (one
 * on each master) and a Worker consumes each queue, while the master of one queue's slot is killed
 * and its replica promoted (after the replicas have caught up, so the data survives). The
 * producers and workers must carry on through it: no acknowledged send lost, sends succeeding
 * again after the promotion, duplicates allowed (at-least-once) and counted. A Worker that sleeps
 * through the failover (its queue idle, on the killed master) must still be woken by a realtime
 * send from another process afterwards, and a RedisSMQ created with a rootNodes list naming the
 * dead master works too. Prints a one-line summary.
 */
import { expect } from "chai";
import RedisSMQ = require("../../../lib");
import { startTestCluster } from "../../support/cluster";
import type { ClusterNode, TestCluster } from "../../support/cluster";
import { DeliveryLedger, NodeClients, Producer, queueNamesPerMaster, sendFromChildProcess } from "../../support/cluster-tools";
import { keysOf, onCluster, uniqueNs } from "../../support/server";
import { WorkerLog, delay, waitFor } from "../../support/worker";
import { runsOn } from "../../support/targets";

runsOn("cluster");

const { Worker } = RedisSMQ;

describe("cluster: failover under load", function () {
  this.timeout(120_000);
  let cluster: TestCluster;
  let nodes: NodeClients;
  let rootNodesAtStart: Array<{ url: string }>;
  const instances: RedisSMQ[] = [];
  const workersToStop: RedisSMQ.Worker[] = [];

  before(async function () {
    if (!onCluster()) this.skip();
    this.timeout(60_000);
    cluster = await startTestCluster();
    nodes = new NodeClients();
    rootNodesAtStart = cluster.rootNodes();
  });
  after(async () => {
    await Promise.all(workersToStop.map((worker) => worker.stop()));
    await nodes?.close();
    for (const instance of instances) await instance.quitAsync().catch(() => undefined);
    await cluster?.close();
  });

  const connectionErrors: Error[] = [];
  function open(ns: string, rootNodes: Array<{ url: string }>): RedisSMQ {
    const rsmq = new RedisSMQ({ cluster: { rootNodes }, ns } as RedisSMQ.ConstructorOptions);
    rsmq.on("error", (error) => connectionErrors.push(error));
    instances.push(rsmq);
    return rsmq;
  }

  let killed: ClusterNode | undefined;
  let promoted: ClusterNode | undefined;
  let ns: string;
  /** A worker on an idle queue on the master that is killed: it sleeps through the failover. */
  let sleeper: { qname: string; worker: RedisSMQ.Worker; log: WorkerLog; handled: string[] } | undefined;

  it("keeps producing and consuming through the failover of a queue's master: no acknowledged send lost", async () => {
    ns = uniqueNs();
    const admin = open(ns, rootNodesAtStart);
    const masters = await cluster.masters();
    const qnames = (await queueNamesPerMaster(cluster, ns, masters)).map(([qname]) => qname);
    // A short vt, so a message whose receive reply was lost with the master reappears soon.
    for (const qname of qnames) await admin.createQueueAsync({ qname, vt: 5 });

    // Listening on the master about to die, with nothing to do (no send wakes it in this process).
    const [idle] = (await queueNamesPerMaster(cluster, ns, masters, 1, "idle"))[0];
    await admin.createQueueAsync({ qname: idle });
    const handledBySleeper: string[] = [];
    const sleeperWorker = new Worker(open(ns, rootNodesAtStart), {
      qname: idle,
      maxIdleSleepMs: 60_000,
      stopTimeoutMs: 1_000,
      handler: (message) => void handledBySleeper.push(message.message),
    });
    sleeperWorker.on("error", () => undefined);
    workersToStop.push(sleeperWorker);
    sleeper = { qname: idle, worker: sleeperWorker, log: new WorkerLog(sleeperWorker), handled: handledBySleeper };
    sleeperWorker.start();
    const idleChannel = keysOf(ns, idle).realtimeChannel;
    await waitFor(
      async () =>
        ((await nodes.run(masters[0], ["PUBSUB", "SHARDNUMSUB", idleChannel])) as [string, number])[1] === 1 && sleeper!.log.asleep,
      "the sleeper to listen on the master to be killed",
    );

    const ledger = new DeliveryLedger();
    const workerErrors: Error[] = [];
    const consumer = open(ns, rootNodesAtStart);
    const workers = qnames.map((qname) => {
      const worker = new Worker(consumer, {
        qname,
        concurrency: 4,
        maxIdleSleepMs: 1_000,
        stopTimeoutMs: 5_000,
        handler: async (message) => {
          ledger.handled(message);
          await delay(1);
        },
      });
      worker.on("error", (error) => workerErrors.push(error));
      return worker.start();
    });
    const producers = [
      new Producer(open(ns, rootNodesAtStart), qnames, ledger, "a"),
      new Producer(open(ns, rootNodesAtStart), [...qnames].reverse(), ledger, "b"),
    ];

    let promotedAt = 0;
    let failoverMs = 0;
    try {
      await waitFor(() => ledger.sent.size >= 150, "150 sends before the failover");
      const slot = cluster.slotOf(keysOf(ns, qnames[0]).hash);
      const killStart = Date.now();
      const failover = await cluster.killMasterAndWaitForFailover(slot);
      promotedAt = Date.now();
      failoverMs = promotedAt - killStart;
      killed = failover.killed;
      promoted = failover.promoted;
      expect(killed.id).to.equal(masters[0].id);

      // Keep going a few seconds on the new topology.
      await waitFor(
        () => qnames.every((qname) => ledger.sentAfter(promotedAt, qname) >= 50),
        "50 sends to each queue after the promotion",
        20_000,
      );
      await delay(2_000);
      await Promise.all(producers.map((producer) => producer.stop()));
      await waitFor(() => ledger.lost().length === 0, "every acknowledged send handled", 30_000);
      await waitFor(
        async () =>
          (await Promise.all(qnames.map((qname) => admin.getQueueAttributesAsync({ qname })))).every((attributes) => attributes.msgs === 0),
        "every queue drained",
        30_000,
      );
      await Promise.all(workers.map((worker) => worker.stop()));

      console.log(
        `      ${ledger.summary("failover")}; failover took ${failoverMs} ms, ${ledger.sentAfter(promotedAt, qnames[0])} sends to the failed-over queue after it; ` +
          `worker errors ${workerErrors.length}, connection errors ${connectionErrors.length}`,
      );
      const reasons = new Map<string, number>();
      for (const error of [...ledger.sendErrors, ...workerErrors]) reasons.set(error.message, (reasons.get(error.message) ?? 0) + 1);
      if (reasons.size > 0) console.log(`      errors: ${JSON.stringify(Object.fromEntries(reasons))}`);

      expect(ledger.sent.size + ledger.sendErrors.length).to.equal(ledger.attempts);
      expect(ledger.lost(), "acknowledged sends never handled").to.deep.equal([]);
      expect(ledger.bodiesMatch()).to.equal(true);
      // The producers recovered: sends to every queue, the failed-over one included, succeeded after the promotion.
      for (const qname of qnames) expect(ledger.sentAfter(promotedAt, qname), qname).to.be.at.least(50);
      for (const worker of workers) expect(worker.counters.handled).to.be.greaterThan(0);
    } finally {
      await Promise.all(producers.map((producer) => producer.stop()));
      await Promise.all(workers.map((worker) => worker.stop()));
    }
  });

  it("wakes a worker that slept through the failover, for a send from another process (its subscription moved to the promoted master)", async function () {
    if (!sleeper || !promoted) this.skip();
    const { qname, log, handled } = sleeper;
    const channel = keysOf(ns, qname).realtimeChannel;
    expect(log.asleep).to.equal(true);
    expect(handled).to.deep.equal([]);
    const subscribers = async () => ((await nodes.run(promoted!, ["PUBSUB", "SHARDNUMSUB", channel])) as [string, number])[1];
    const before = log.events.length;
    await sendFromChildProcess(cluster.rootNodes(), ns, [qname], "after the failover");
    try {
      await waitFor(() => handled.length === 1, "the sleeper to handle the message, well before its 60 s cap", 10_000);
    } catch (error) {
      const events = log.events.slice(before).map((event) => event.name);
      throw new Error(
        `${(error as Error).message}; subscribers on the promoted master: ${await subscribers()}; events since the send: ${JSON.stringify(events)}`,
      );
    }
    expect(await subscribers()).to.equal(1);
  });

  it("a RedisSMQ whose rootNodes list names the killed master works", async function () {
    if (!killed) this.skip();
    // The sleeper's queue is among those sent to below: left running, its worker would be woken by
    // the send and could take the message before this test's receive.
    await sleeper?.worker.stop();
    const dead = rootNodesAtStart.find((node) => node.url === killed!.url)!;
    expect(dead).to.not.equal(undefined);
    // The dead master first, then the others.
    const rsmq = open(ns, [dead, ...rootNodesAtStart.filter((node) => node !== dead)]);
    await rsmq.createQueueAsync({ qname: "after-failover" });
    const qnames = await rsmq.listQueuesAsync();
    expect(qnames).to.include("after-failover").and.have.length(5);
    for (const qname of qnames) {
      const id = await rsmq.sendMessageAsync({ qname, message: "still here" });
      const { messages } = await rsmq.receiveMessagesAsync({ qname, count: 10 });
      expect(
        messages.find((message) => message.id === id),
        qname,
      ).to.include({ message: "still here", rc: 1 });
      expect(await rsmq.deleteMessagesAsync({ qname, ids: messages.map((message) => message.id) })).to.not.include(0);
    }
  });
});
