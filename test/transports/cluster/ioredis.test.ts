/**
 * An ioredis `Redis.Cluster` client as `client`, against the local test cluster: recognised as a
 * cluster (the cluster key layout, `<ns>:{q}`), not taken for a node-redis v3 client, left open by
 * quitAsync(); queues on each of the 3 masters; a Worker woken by a send from another process
 * through sharded pub/sub; `waitForReplicas` WAITing on the master that ran the write. With an
 * ioredis 5 and an ioredis 6 client alike (a Cluster client subscribes on a copy of its own in both:
 * its pub/sub connections are not its command connections).
 */
import { expect } from "chai";
import { Cluster } from "ioredis";
import { Cluster as Cluster6 } from "ioredis6";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../../lib");
import type { TestCluster } from "../../support/cluster";
import { NodeClients, queueNamesPerMaster, sendFromChildProcess } from "../../support/cluster-tools";
import { MonitorWatch } from "../../support/monitor-socket";
import { subscribersOf } from "../../support/inspect";
import { onCluster, plainClient, testCluster, uniqueNs } from "../../support/server";
import { Cleanup, WorkerLog, waitFor } from "../../support/worker";
import { runsOn } from "../../support/targets";

runsOn("cluster");

const { Worker } = RedisSMQ;

for (const version of ["ioredis5", "ioredis6"] as const) {
  describe(`cluster: an ${version} Cluster client as \`client\``, function () {
    this.timeout(30_000);
    let cluster: TestCluster;
    let inspector: RedisClientType;
    let nodes: NodeClients;
    const cleanup = new Cleanup();

    before(async function () {
      if (!onCluster()) this.skip();
      cluster = testCluster();
      inspector = await plainClient();
      nodes = new NodeClients();
    });
    afterEach(() => cleanup.run());
    after(async () => {
      await inspector?.quit();
      await nodes?.close();
    });

    /** A connected ioredis Cluster client on the test cluster, closed after the test. */
    async function ioredisCluster(): Promise<Cluster> {
      const nodes = cluster.rootNodes().map(({ url }) => ({ host: new URL(url).hostname, port: Number(new URL(url).port) }));
      const client = version === "ioredis6" ? (new Cluster6(nodes) as unknown as Cluster) : new Cluster(nodes);
      client.on("error", () => undefined);
      cleanup.add(async () => client.disconnect());
      await new Promise<void>((resolve, reject) => {
        client.once("ready", () => resolve());
        client.once("error", reject);
      });
      return client;
    }

    it("sends and receives on queues on each of the 3 masters, in the cluster key layout, and leaves the client open", async () => {
      const client = await ioredisCluster();
      const warnings: Error[] = [];
      const onWarning = (warning: Error): void => void warnings.push(warning);
      process.on("warning", onWarning);
      cleanup.add(async () => void process.off("warning", onWarning));
      const ns = uniqueNs("iocl");
      const rsmq = new RedisSMQ({ client, ns } as never);
      expect(rsmq.redis).to.equal(client);
      const qnames = (await queueNamesPerMaster(cluster, ns, await cluster.masters())).map(([qname]) => qname);
      for (const qname of qnames) {
        await rsmq.createQueueAsync({ qname });
        const id = await rsmq.sendMessageAsync({ qname, message: `to ${qname}` });
        expect(await inspector.hGet(`${ns}:{${qname}}:Q`, id)).to.equal(`to ${qname}`);
        expect(await rsmq.receiveMessageAsync({ qname })).to.include({ id, message: `to ${qname}` });
      }
      expect((await rsmq.listQueuesAsync()).sort()).to.deep.equal([...qnames].sort());
      await rsmq.quitAsync();
      expect(client.status).to.equal("ready");
      expect(await client.get(`${ns}:{${qnames[0]}}:missing`)).to.equal(null);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => warning.message)).to.deep.equal([]);
    });

    it("wakes a Worker for a send from another process, by SSUBSCRIBE on the queue's master", async () => {
      const client = await ioredisCluster();
      const ns = uniqueNs("iocl");
      const rsmq = cleanup.rsmq(new RedisSMQ({ client, ns } as never));
      rsmq.on("error", () => undefined);
      const masters = await cluster.masters();
      const qnames = (await queueNamesPerMaster(cluster, ns, masters)).map(([qname]) => qname);
      const handled: string[] = [];
      const logs: WorkerLog[] = [];
      for (const qname of qnames) {
        await rsmq.createQueueAsync({ qname });
        const worker = cleanup.worker(
          new Worker(rsmq, { qname, maxIdleSleepMs: 60_000, handler: (message) => void handled.push(message.message) }),
        );
        logs.push(new WorkerLog(worker));
        worker.start();
      }
      for (const [i, qname] of qnames.entries()) {
        const channel = `${ns}:rt:{${qname}}`;
        await waitFor(async () => (await subscribersOf(inspector, channel)) === 1 && logs[i].asleep, `the worker on ${qname} listening`);
        expect(await nodes.run(masters[i], ["PUBSUB", "SHARDNUMSUB", channel])).to.deep.equal([channel, 1]);
      }
      await sendFromChildProcess(cluster.rootNodes(), ns, qnames, "from afar");
      await waitFor(() => handled.length === 3, "every worker to handle its message, well before the idle cap", 5_000);
      expect(handled).to.deep.equal(["from afar", "from afar", "from afar"]);
    });

    it("with waitForReplicas, WAITs on the master that ran each write", async () => {
      const client = await ioredisCluster();
      const ns = uniqueNs("iocl");
      const rsmq = cleanup.rsmq(new RedisSMQ({ client, ns, waitForReplicas: 1, waitForReplicasMs: 5_000 } as never));
      const masters = await cluster.masters();
      const qnames = (await queueNamesPerMaster(cluster, ns, masters)).map(([qname]) => qname);
      for (const qname of qnames) await rsmq.createQueueAsync({ qname });
      const monitor = await MonitorWatch.open(masters);
      cleanup.add(() => monitor.close());
      for (const qname of qnames) await rsmq.sendMessageAsync({ qname, message: "replicated" });
      const commands = (await monitor.commands()).filter(
        (command) => !command.fromScript && /^(evalsha|eval|wait)$/i.test(command.args[0]),
      );
      expect(commands.map(({ port, args }) => `${port} ${args[0].toLowerCase()}`)).to.deep.equal(
        masters.flatMap(({ port }) => [`${port} evalsha`, `${port} wait`]),
      );
    });
  });
}
