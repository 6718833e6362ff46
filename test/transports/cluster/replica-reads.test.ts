/**
 * Reads stay on the masters, whatever the cluster client passed in would do with read-only
 * commands: node-redis' `useReplicas: true` and ioredis' `scaleReads: "slave"` send them to
 * replicas, which lag behind their master (a Worker's look on a replica cut off from its master
 * would never see a message due). rsmq-next routes every call as a write for node-redis, and on an
 * ioredis cluster client with `scaleReads` sends the read-only scripts by EVALSHA, which ioredis
 * keeps on the master (see docs/cluster.md).
 */
import { expect } from "chai";
import { Cluster } from "ioredis";
import { createCluster } from "redis";
import type { RedisClusterType } from "redis";
import RedisSMQ = require("../../../lib");
import { readQueueStats } from "../../../lib/cli/queue-reads";
import type { ClusterNode, TestCluster } from "../../support/cluster";
import { MonitorWatch } from "../../support/monitor-socket";
import { keysOf, onCluster, testCluster, uniqueNs } from "../../support/server";
import { Cleanup } from "../../support/worker";
import { runsOn } from "../../support/targets";

runsOn("cluster");

describe("cluster: reads go to the masters, also with a client that sends read-only commands to replicas", function () {
  this.timeout(30_000);
  let cluster: TestCluster;
  const cleanup = new Cleanup();

  before(function () {
    if (!onCluster()) this.skip();
    cluster = testCluster();
  });
  afterEach(() => cleanup.run());

  const addressesOf = (): Array<{ host: string; port: number }> =>
    cluster.rootNodes().map(({ url }) => ({ host: new URL(url).hostname, port: Number(new URL(url).port) }));

  /** Every read-only call once, on a queue holding one message, with what it answered. */
  async function everyRead(rsmq: RedisSMQ): Promise<string[]> {
    return [
      `attributes ${(await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs}`,
      `peekMessages ${(await rsmq.peekMessagesAsync({ qname: "q" })).length}`,
      `peekDeadLetters ${(await rsmq.peekDeadLettersAsync({ qname: "q" })).length}`,
      `stats ${(await readQueueStats(rsmq, "q")).msgs}`,
    ];
  }

  /** The reads, watched on every node: each script call as `<port> <command>`, and the queue's master. */
  async function readsWatched(rsmq: RedisSMQ, ns: string): Promise<{ calls: string[]; master: ClusterNode }> {
    await rsmq.createQueueAsync({ qname: "q" });
    await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    // Once unwatched, so the scripts are cached where the reads go (no NOSCRIPT and EVAL below).
    expect(await everyRead(rsmq)).to.deep.equal(["attributes 1", "peekMessages 1", "peekDeadLetters 1", "stats 1"]);
    const watch = await MonitorWatch.open(await Promise.all([...(await cluster.masters()), ...(await cluster.replicas())]));
    cleanup.add(() => watch.close());
    expect(await everyRead(rsmq)).to.deep.equal(["attributes 1", "peekMessages 1", "peekDeadLetters 1", "stats 1"]);
    const calls = (await watch.commands())
      .filter(({ fromScript, args }) => !fromScript && /^eval/.test(args[0]))
      .map(({ port, args }) => `${port} ${args[0]}`);
    return { calls, master: await cluster.masterOfSlot(cluster.slotOf(keysOf(ns, "q").hash)) };
  }

  it("node-redis createCluster({ useReplicas: true }) as `client`: each read is one EVALSHA_RO on the queue's master", async () => {
    const client = createCluster({ rootNodes: cluster.rootNodes(), useReplicas: true }) as RedisClusterType;
    client.on("error", () => undefined);
    await client.connect();
    cleanup.add(() => client.quit());
    const ns = uniqueNs("rr");
    const rsmq = cleanup.rsmq(new RedisSMQ({ client, ns } as never));
    const { calls, master } = await readsWatched(rsmq, ns);
    expect(calls).to.deep.equal(Array(4).fill(`${master.port} evalsha_ro`));
  });

  it('ioredis Cluster with scaleReads: "slave" as `client`: each read is one EVALSHA on the queue\'s master', async () => {
    const client = new Cluster(addressesOf(), { scaleReads: "slave" });
    client.on("error", () => undefined);
    cleanup.add(async () => client.disconnect());
    await new Promise<void>((resolve, reject) => {
      client.once("ready", () => resolve());
      client.once("error", reject);
    });
    const ns = uniqueNs("rr");
    const rsmq = cleanup.rsmq(new RedisSMQ({ client, ns } as never));
    const { calls, master } = await readsWatched(rsmq, ns);
    expect(calls).to.deep.equal(Array(4).fill(`${master.port} evalsha`));
  });
});
