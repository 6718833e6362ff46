/**
 * Resharding under load, on a cluster of its own: a Worker consumes a queue while two producers
 * keep sending, and the queue's slot is migrated to another master one key per batch, held
 * half-moved for a while (the queue's sorted set on one master, its hash on the other), so every
 * operation on the queue meets TRYAGAIN, then ASK, then MOVED. No acknowledged send may be lost;
 * duplicates are allowed (at-least-once) and counted. Prints a one-line summary. And a Worker that
 * sleeps while its queue's slot moves must still be woken by a realtime send from another process.
 */
import { expect } from "chai";
import RedisSMQ = require("../../../lib");
import { startTestCluster } from "../../support/cluster";
import type { ClusterNode, TestCluster } from "../../support/cluster";
import { DeliveryLedger, NodeClients, Producer, sendFromChildProcess } from "../../support/cluster-tools";
import { keysOf, onCluster, uniqueNs } from "../../support/server";
import { WorkerLog, delay, waitFor } from "../../support/worker";
import { runsOn } from "../../support/targets";

runsOn("cluster");

const { Worker } = RedisSMQ;

describe("cluster: resharding under load", function () {
  this.timeout(90_000);
  let cluster: TestCluster;
  let nodes: NodeClients;
  const instances: RedisSMQ[] = [];

  before(async function () {
    if (!onCluster()) this.skip();
    this.timeout(60_000);
    cluster = await startTestCluster();
    nodes = new NodeClients();
  });
  after(async () => {
    for (const instance of instances) await instance.quitAsync().catch(() => undefined);
    await nodes?.close();
    await cluster?.close();
  });

  it("wakes a worker that slept through the migration of its queue's slot, for a send from another process", async () => {
    const ns = uniqueNs();
    const rsmq = new RedisSMQ({ cluster: { rootNodes: cluster.rootNodes() }, ns } as RedisSMQ.ConstructorOptions);
    rsmq.on("error", () => undefined);
    instances.push(rsmq);
    await rsmq.createQueueAsync({ qname: "idle" });
    const handled: string[] = [];
    const worker = new Worker(rsmq, {
      qname: "idle",
      maxIdleSleepMs: 60_000,
      stopTimeoutMs: 1_000,
      handler: (message) => void handled.push(message.message),
    });
    worker.on("error", () => undefined);
    const log = new WorkerLog(worker);
    worker.start();
    const { realtimeChannel, hash } = keysOf(ns, "idle");
    const slot = cluster.slotOf(hash);
    const source = await cluster.masterOfSlot(slot);
    const target = (await cluster.masters()).find((master) => master.id !== source.id)!;
    const subscribers = async (node: ClusterNode) =>
      ((await nodes.run(node, ["PUBSUB", "SHARDNUMSUB", realtimeChannel])) as [string, number])[1];
    try {
      await waitFor(async () => (await subscribers(source)) === 1 && log.asleep, "the worker to listen and sleep");
      await cluster.migrateSlot(slot, target);
      // The source drops the shard channel's subscribers (SUNSUBSCRIBE), and node-redis subscribes again on the target.
      await waitFor(async () => (await subscribers(target)) === 1, "the subscription to follow the slot", 5_000);
      expect(log.asleep).to.equal(true);
      await sendFromChildProcess(cluster.rootNodes(), ns, ["idle"], "after the migration");
      await waitFor(() => handled.length === 1, "the message handled, well before the 60 s cap", 5_000);
    } finally {
      await worker.stop();
    }
  });

  /** Error replies a node gave, by prefix (INFO errorstats). */
  async function errorStats(node: ClusterNode): Promise<Record<string, number>> {
    const info = String(await nodes.run(node, ["INFO", "errorstats"]));
    const stats: Record<string, number> = {};
    for (const match of info.matchAll(/^errorstat_([^:]+):count=(\d+)/gm)) stats[match[1]] = Number(match[2]);
    return stats;
  }

  it("moves a queue's slot while it is used: every acknowledged send handled, none lost, the keys on the new master", async () => {
    const ns = uniqueNs();
    const connectionErrors: Error[] = [];
    const open = (): RedisSMQ => {
      const rsmq = new RedisSMQ({ cluster: { rootNodes: cluster.rootNodes() }, ns } as RedisSMQ.ConstructorOptions);
      rsmq.on("error", (error) => connectionErrors.push(error));
      instances.push(rsmq);
      return rsmq;
    };
    const admin = open();
    // A short vt, so a message whose receive reply was lost reappears soon.
    await admin.createQueueAsync({ qname: "q", vt: 5 });
    const { messages, hash } = keysOf(ns, "q");
    const slot = cluster.slotOf(hash);
    // Other keys in the slot, so the migration (one key per batch) takes a while.
    for (let i = 0; i < 10; i++) await admin.redis.set(`${ns}:{q}:filler:${i}`, String(i));

    const ledger = new DeliveryLedger();
    const workerErrors: Error[] = [];
    const worker = new Worker(open(), {
      qname: "q",
      // Slower than the producers, so the queue keeps a backlog: its sorted set always exists. (An
      // empty queue has no sorted set, and while its slot is migrating every script on it gets
      // TRYAGAIN, since one of its keys is missing on both nodes.)
      concurrency: 2,
      maxIdleSleepMs: 1_000,
      stopTimeoutMs: 5_000,
      handler: async (message) => {
        ledger.handled(message);
        await delay(10);
      },
    });
    worker.on("error", (error) => workerErrors.push(error));
    worker.start();
    const producers = [new Producer(open(), ["q"], ledger, "a"), new Producer(open(), ["q"], ledger, "b")];

    try {
      await waitFor(() => ledger.sent.size >= 100, "100 sends before the migration");
      const source = await cluster.masterOfSlot(slot);
      const target = (await cluster.masters()).find((master) => master.id !== source.id)!;
      const errorsBefore = await errorStats(source);

      let splitBatches = 0;
      let heldMs = 0;
      let askPhase: [number, number] | undefined;
      const migrationStart = Date.now();
      const { keysMoved } = await cluster.migrateSlot(slot, target, {
        keysPerBatch: 1,
        pauseMs: 100,
        afterBatch: async () => {
          // Hold the slot longer while the queue's two keys are on different masters.
          const moved = await nodes.keys(target, `${ns}:{q}*`);
          if (moved.includes(hash) && moved.includes(messages) && !askPhase) {
            // Both moved, the slot still migrating: the source answers ASK, node-redis follows it.
            const start = Date.now();
            await delay(500);
            askPhase = [start, Date.now()];
          } else if (moved.includes(messages) !== moved.includes(hash)) {
            splitBatches += 1;
            // At most about a second in all: every operation on the queue is refused (TRYAGAIN) meanwhile.
            if (heldMs < 1_000) {
              heldMs += 400;
              await delay(400);
            }
          }
        },
      });
      const migrationEnd = Date.now();
      const errorsAfter = await errorStats(source);

      await waitFor(() => ledger.sentAfter(migrationEnd) >= 100, "100 sends after the migration", 15_000);
      await Promise.all(producers.map((producer) => producer.stop()));
      await waitFor(() => ledger.lost().length === 0, "every acknowledged send handled", 30_000);
      await waitFor(async () => (await admin.getQueueAttributesAsync({ qname: "q" })).msgs === 0, "the queue drained", 30_000);
      await worker.stop();

      const during = ledger.sentStartedBetween(migrationStart, migrationEnd);
      const redirects = Object.fromEntries(
        ["TRYAGAIN", "ASK", "MOVED"].map((kind) => [kind, (errorsAfter[kind] ?? 0) - (errorsBefore[kind] ?? 0)]),
      );
      console.log(
        `      ${ledger.summary("resharding")}; ${keysMoved} keys moved in ${migrationEnd - migrationStart} ms ` +
          `(${splitBatches} batches with the queue split), ${during} sends made during it ` +
          `(${askPhase ? ledger.sentStartedBetween(...askPhase) : "no"} while both keys had moved, through ASK); source replied ${JSON.stringify(redirects)}; ` +
          `worker errors ${workerErrors.length}, connection errors ${connectionErrors.length}`,
      );

      expect(keysMoved).to.be.at.least(11);
      expect(during, "sends made while the slot was moving, acknowledged").to.be.greaterThan(0);
      expect(ledger.sent.size + ledger.sendErrors.length).to.equal(ledger.attempts);
      expect(ledger.sendErrors.map(String), "sends that rejected").to.deep.equal([]);
      expect(ledger.lost(), "acknowledged sends never handled").to.deep.equal([]);
      expect(ledger.bodiesMatch()).to.equal(true);
      expect(workerErrors.map(String), "worker errors").to.deep.equal([]);

      // The queue now lives on the target, and nothing of it is left on the source.
      expect((await cluster.masterOfSlot(slot)).id).to.equal(target.id);
      expect(await nodes.keys(target, `${ns}:{q}:Q`)).to.deep.equal([hash]);
      expect(await nodes.keys(source, `${ns}:*`)).to.not.include.members([hash, messages]);
      expect(await nodes.run(source, ["CLUSTER", "COUNTKEYSINSLOT", String(slot)])).to.equal(0);
      expect(await admin.getQueueAttributesAsync({ qname: "q" })).to.include({
        msgs: 0,
        totalsent: ledger.sent.size + ledger.unacknowledgedHandled(),
      });
    } finally {
      await Promise.all(producers.map((producer) => producer.stop()));
      await worker.stop();
    }
  });
});
