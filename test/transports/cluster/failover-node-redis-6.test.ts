/**
 * A master failover through a node-redis 6 cluster client passed in (RESP3, with node-redis'
 * defaults: an offline queue, reconnecting for ever), on a cluster of its own: what
 * failover.test.ts and password-protected.test.ts check for node-redis 4 and owned clients.
 * - A send made the moment the queue's master is killed succeeds once its replica is promoted,
 *   and nothing sent before, during or after is lost.
 * - A Worker that slept through the failover on the killed master's queue is woken by a send
 *   from another process afterwards (its subscription moved to the promoted master).
 * - The client passed in stays `rsmq.redis` and open through it all.
 */
import { expect } from "chai";
import RedisSMQ = require("../../../lib");
import { startTestCluster } from "../../support/cluster";
import type { ClusterNode, TestCluster } from "../../support/cluster";
import { NodeClients, queueNamesPerMaster, sendFromChildProcess } from "../../support/cluster-tools";
import { keysOf, onCluster, uniqueNs } from "../../support/server";
import { clusterTestClient } from "../../support/test-clients";
import type { TestClient } from "../../support/test-clients";
import { WorkerLog, waitFor } from "../../support/worker";
import { runsOn } from "../../support/targets";

runsOn("cluster");

const { Worker } = RedisSMQ;

/** The default, and the harness's own bound on a failover: a client passed in gets no more time than an owned one. */
const CLUSTER_RETRY_MS = 30_000;

describe("cluster: failover through a node-redis 6 cluster client passed in", function () {
  this.timeout(120_000);
  let cluster: TestCluster;
  let nodes: NodeClients;
  let made: TestClient;
  const instances: RedisSMQ[] = [];
  const workers: RedisSMQ.Worker[] = [];
  const errors: Error[] = [];

  before(async function () {
    if (!onCluster()) this.skip();
    this.timeout(60_000);
    cluster = await startTestCluster();
    nodes = new NodeClients();
    made = clusterTestClient("noderedis6-resp3", cluster.rootNodes());
  });
  after(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    for (const instance of instances) await instance.quitAsync().catch(() => undefined);
    made?.close();
    await nodes?.close();
    await cluster?.close();
  });

  function open(ns: string): RedisSMQ {
    const rsmq = new RedisSMQ({ client: made.client, ns, clusterRetryMs: CLUSTER_RETRY_MS } as unknown as RedisSMQ.ConstructorOptions);
    rsmq.on("error", (error) => errors.push(error));
    instances.push(rsmq);
    return rsmq;
  }

  let ns: string;
  let promoted: ClusterNode | undefined;
  let sleeper: { qname: string; log: WorkerLog; handled: string[] } | undefined;

  it("loses nothing: a send made at the kill succeeds after the promotion, and every send is received", async () => {
    ns = uniqueNs();
    const rsmq = open(ns);
    const masters = await cluster.masters();
    const [[qname]] = await queueNamesPerMaster(cluster, ns, [masters[0]]);
    const [[idle]] = await queueNamesPerMaster(cluster, ns, [masters[0]], 1, "idle");
    await rsmq.createQueueAsync({ qname });
    await rsmq.createQueueAsync({ qname: idle });

    // A Worker on the master about to die, with nothing to do: it sleeps through the failover.
    const handled: string[] = [];
    const worker = new Worker(open(ns), {
      qname: idle,
      maxIdleSleepMs: 60_000,
      stopTimeoutMs: 1_000,
      handler: (message) => void handled.push(message.message),
    });
    worker.on("error", () => undefined);
    workers.push(worker);
    const log = new WorkerLog(worker);
    worker.start();
    const idleChannel = keysOf(ns, idle).realtimeChannel;
    await waitFor(
      async () => ((await nodes.run(masters[0], ["PUBSUB", "SHARDNUMSUB", idleChannel])) as [string, number])[1] === 1 && log.asleep,
      "the sleeper to listen on the master to be killed",
    );
    sleeper = { qname: idle, log, handled };

    await rsmq.sendMessageAsync({ qname, message: "before" });
    let during: string | undefined;
    let tookMs = 0;
    const failover = await cluster.killMasterAndWaitForFailover(cluster.slotOf(keysOf(ns, qname).hash), {
      afterKill: () => {
        const killedAt = Date.now();
        // Not awaited: the send runs while the failover does.
        void rsmq
          .sendMessageAsync({ qname, message: "during" })
          .then(
            (id) => (during = typeof id === "string" ? "sent" : `answered ${String(id)}`),
            (error: Error) => (during = `${error.name}: ${error.message}`),
          )
          .finally(() => (tookMs = Date.now() - killedAt));
      },
    });
    promoted = failover.promoted;
    await waitFor(() => during !== undefined, "the send made at the kill", CLUSTER_RETRY_MS + 5_000).catch(() => undefined);
    console.log(`      the send made at the kill settled after ${tookMs} ms`);
    expect(during ?? "still pending", "the send made at the kill").to.equal("sent");
    await rsmq.sendMessageAsync({ qname, message: "after" });

    const received: string[] = [];
    for (let page = 0; page < 10; page++) {
      const { messages } = await rsmq.receiveMessagesAsync({ qname, count: 10 });
      if (messages.length === 0) break;
      received.push(...messages.map(({ message }) => message));
    }
    // A retried send may run twice (its reply lost with the master): at-least-once, so compared as a set.
    expect([...new Set(received)].sort()).to.deep.equal(["after", "before", "during"]);
    expect(rsmq.redis === made.client, "rsmq.redis is still the client passed").to.equal(true);
    expect((made.client as { isOpen: boolean }).isOpen).to.equal(true);
  });

  it("wakes a Worker that slept through the failover, for a send from another process (its subscription moved to the promoted master)", async function () {
    if (!sleeper || !promoted) this.skip();
    const { qname, log, handled } = sleeper;
    expect(log.asleep).to.equal(true);
    expect(handled).to.deep.equal([]);
    const channel = keysOf(ns, qname).realtimeChannel;
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
});
