/**
 * Realtime wakes in Redis Cluster: sendMessage's script publishes with SPUBLISH on the queue's
 * shard channel `<ns>:rt:{q}` (in the queue's slot), a Worker listens there with SSUBSCRIBE on the
 * slot's master, and a Worker whose own process did not send (another RedisSMQ instance, or
 * another process) wakes for it long before its idle cap, for queues on each of the 3 masters.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../../lib");
import type { TestCluster } from "../../support/cluster";
import { NodeClients, queueNamesPerMaster, sendFromChildProcess } from "../../support/cluster-tools";
import { MonitorWatch } from "../../support/monitor-socket";
import { subscribersOf } from "../../support/inspect";
import { connectionOptions, keysOf, onCluster, plainClient, testCluster, uniqueNs } from "../../support/server";
import { Cleanup, WorkerLog, waitFor } from "../../support/worker";
import { runsOn } from "../../support/targets";

runsOn("cluster");

const { Worker } = RedisSMQ;

/** Far beyond how long any wake may take: a message handled well before it was woken, not found by the timer. */
const IDLE_CAP_MS = 60_000;

/** The reasons of the wake events a worker emitted after its `from`-th event. */
function wakesSince(log: WorkerLog, from: number): unknown[] {
  return log.events
    .slice(from)
    .filter((event) => event.name === "wake")
    .map((event) => event.args[0]);
}

describe("cluster: realtime wakes (sharded pub/sub)", function () {
  this.timeout(30_000);
  let cluster: TestCluster;
  let client: RedisClientType;
  let nodes: NodeClients;
  const cleanup = new Cleanup();

  before(async function () {
    if (!onCluster()) this.skip();
    cluster = testCluster();
    client = await plainClient();
    nodes = new NodeClients();
  });
  afterEach(() => cleanup.run());
  after(async () => {
    await client?.quit();
    await nodes?.close();
  });

  /** A started worker on its own RedisSMQ instance, recording what it handled; resolves once it listens and sleeps. */
  async function listeningWorker(ns: string, qname: string) {
    const rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    rsmq.on("error", () => undefined);
    const handled: string[] = [];
    const worker = cleanup.worker(
      new Worker(rsmq, { qname, maxIdleSleepMs: IDLE_CAP_MS, handler: (message) => void handled.push(message.message) }),
    );
    const log = new WorkerLog(worker);
    worker.start();
    const channel = keysOf(ns, qname).realtimeChannel;
    await waitFor(async () => (await subscribersOf(client, channel)) === 1 && log.asleep, `the worker on ${qname} to listen and sleep`);
    return { worker, log, handled, channel };
  }

  it("publishes with SPUBLISH on <ns>:rt:{q} from the script, on the queue's master, where the worker's SSUBSCRIBE is", async () => {
    const ns = uniqueNs();
    const sender = cleanup.rsmq(new RedisSMQ({ ...connectionOptions(ns), realtime: true }));
    await sender.createQueueAsync({ qname: "q" });
    const { channel, handled } = await listeningWorker(ns, "q");
    expect(channel).to.equal(`${ns}:rt:{q}`);

    const owner = await cluster.masterOfSlot(cluster.slotOf(channel));
    expect(owner.id).to.equal((await cluster.masterOfSlot(cluster.slotOf(keysOf(ns, "q").hash))).id);
    expect(await nodes.run(owner, ["PUBSUB", "SHARDNUMSUB", channel])).to.deep.equal([channel, 1]);
    // Beside it the queue's wake channel, in the same slot (a send at the defaults publishes there).
    const { wakeChannel } = keysOf(ns, "q");
    expect(cluster.slotOf(wakeChannel)).to.equal(cluster.slotOf(channel));
    expect(((await nodes.run(owner, ["PUBSUB", "SHARDCHANNELS", `${ns}:*`])) as string[]).sort()).to.deep.equal([channel, wakeChannel]);
    // Sharded: no plain channel anywhere.
    for (const master of await cluster.masters())
      expect(await nodes.run(master, ["PUBSUB", "NUMSUB", channel])).to.deep.equal([channel, 0]);

    const monitor = await MonitorWatch.open(await cluster.masters());
    cleanup.add(() => monitor.close());
    await sender.sendMessageAsync({ qname: "q", message: "hello" });
    await waitFor(() => handled.length === 1, "the message handled");
    const publishes = (await monitor.commands()).filter((command) => /publish$/.test(command.args[0]));
    expect(publishes.map(({ port, fromScript, args }) => ({ port, fromScript, args }))).to.deep.equal([
      { port: owner.port, fromScript: true, args: ["spublish", channel, "1"] },
    ]);
  });

  it("wakes a worker of another RedisSMQ instance long before its 60 s cap", async () => {
    const ns = uniqueNs();
    const sender = cleanup.rsmq(new RedisSMQ({ ...connectionOptions(ns), realtime: true }));
    await sender.createQueueAsync({ qname: "q" });
    const { handled, log } = await listeningWorker(ns, "q");
    const before = log.events.length;
    await sender.sendMessageAsync({ qname: "q", message: "wake up" });
    await waitFor(() => handled.length === 1, "the message handled, well before the idle cap", 5_000);
    expect(handled).to.deep.equal(["wake up"]);
    expect(wakesSince(log, before)).to.include("woken");
  });

  it("wakes workers on queues on each of the 3 masters for sends from another process", async () => {
    const ns = uniqueNs();
    const admin = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    const masters = await cluster.masters();
    expect(masters).to.have.length(3);
    const qnames = (await queueNamesPerMaster(cluster, ns, masters)).map(([qname]) => qname);
    for (const qname of qnames) await admin.createQueueAsync({ qname });
    const workers: Array<Awaited<ReturnType<typeof listeningWorker>>> = [];
    for (const qname of qnames) workers.push(await listeningWorker(ns, qname));
    for (const [i, { channel }] of workers.entries()) {
      expect(await nodes.run(masters[i], ["PUBSUB", "SHARDNUMSUB", channel])).to.deep.equal([channel, 1]);
    }

    // Only the SPUBLISH can reach this process: the sender's in-process wakes stay in its own.
    const before = workers.map(({ log }) => log.events.length);
    const ids = await sendFromChildProcess(cluster.rootNodes(), ns, qnames, "from afar");
    expect(ids).to.have.length(3);
    await waitFor(
      () => workers.every(({ handled }) => handled.length === 1),
      "every worker to handle its message, well before the idle cap",
      5_000,
    );
    for (const [i, { log }] of workers.entries()) expect(wakesSince(log, before[i]), qnames[i]).to.include("woken");
  });
});
