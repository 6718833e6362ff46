/**
 * A password-protected cluster of its own (requirepass and masterauth on every node, plus an ACL
 * user), for what only shows there or only shows when a topology changes under a call:
 * - `waitForReplicas` during a slot migration: a write that followed ASK to the target must be
 *   confirmed by the target's replicas, not by the source's (where the old slot map routes a WAIT).
 *   The target's only replica is stopped, so the target can confirm nothing: such a write must be
 *   rejected `replicationTimeout`, and still be there.
 * - A cluster client passed in with credentials in `defaults` keeps them when a failover makes
 *   rsmq-next read the topology afresh into a new client; closing the client passed in then still
 *   closes the instance (test/cluster/closing-rsmq-redis.test.ts has the rest of that).
 */
import { expect } from "chai";
import { createCluster, type RedisClusterType } from "redis";
import RedisSMQ = require("../../lib/index");
import { KeyLayout } from "../../lib/keys";
import { startTestCluster, type ClusterNode, type TestCluster } from "../support/cluster";
import { queueNamesPerMaster } from "../support/cluster-tools";
import { rejectionOf } from "../support/old-rsmq";
import { onCluster, uniqueNs } from "../support/server";

const PASSWORD = "rsmq-secret";
const USER = { username: "alice", password: "alice-secret" };

describe("cluster: a password-protected cluster", function () {
  this.timeout(90_000);
  let cluster: TestCluster;
  const instances: RedisSMQ[] = [];
  const clients: RedisClusterType[] = [];
  const connectionErrors: Error[] = [];

  before(async function () {
    if (!onCluster()) this.skip();
    this.timeout(60_000);
    cluster = await startTestCluster({ password: PASSWORD, users: [`${USER.username} on >${USER.password} ~* &* +@all`] });
  });
  after(async () => {
    for (const instance of instances) await instance.quitAsync().catch(() => undefined);
    // A client passed in stays the caller's to close; its master may be dead, so no QUIT.
    for (const client of clients) await client.disconnect().catch(() => undefined);
    await cluster?.close();
  });

  function open(options: RedisSMQ.ConstructorOptions): RedisSMQ {
    const rsmq = new RedisSMQ(options);
    rsmq.on("error", (error) => connectionErrors.push(error));
    instances.push(rsmq);
    return rsmq;
  }

  /** How a call ended: its value, or the name of its error. */
  async function outcomeOf(call: Promise<unknown>): Promise<{ value?: unknown; error?: string }> {
    try {
      return { value: await call };
    } catch (error) {
      return { error: (error as Error).name };
    }
  }

  it("waitForReplicas: a write that follows ASK to a migration target with no live replica is not acknowledged, and is kept", async () => {
    const ns = uniqueNs();
    const layout = KeyLayout.for(ns, true);
    const rsmq = open({
      cluster: { rootNodes: cluster.rootNodes(), defaults: { password: PASSWORD } },
      ns,
      waitForReplicas: 1,
      waitForReplicasMs: 500,
    } as RedisSMQ.ConstructorOptions);
    // The registry and the migrating queue start on one master, the control queue on the target.
    const registrySlot = cluster.slotOf(layout.registry);
    const source = await cluster.masterOfSlot(registrySlot);
    const target = (await cluster.masters()).find((master) => master.id !== source.id)!;
    const [onSource, [settled]] = await queueNamesPerMaster(cluster, ns, [source, target], 4);
    // Two queues on the source, each in a slot of its own: one moves, the other stays (and has a replica).
    const slotOf = (qname: string): number => cluster.slotOf(layout.queue(qname).hash);
    const [moving, late] = onSource.filter(
      (qname, n) => slotOf(qname) !== registrySlot && onSource.findIndex((other) => slotOf(other) === slotOf(qname)) === n,
    );
    await rsmq.createQueueAsync({ qname: moving });
    await rsmq.createQueueAsync({ qname: settled });
    await rsmq.sendMessageAsync({ qname: moving, message: "before the migration" });

    const targetReplicas = await cluster.replicasOf(target);
    expect(targetReplicas).to.have.length(1);
    await cluster.killReplica(targetReplicas[0]);
    // Control: a write on the target cannot be confirmed; one on the source still is.
    expect(await rejectionOf(rsmq.sendMessageAsync({ qname: settled, message: "control" }))).to.include({ name: "replicationTimeout" });
    expect(await rsmq.sendMessageAsync({ qname: moving, message: "on the source" })).to.be.a("string");

    // Both keys move in the first batch; the slot then stays MIGRATING, so the source answers ASK.
    const during: Array<{ value?: unknown; error?: string }> = [];
    await cluster.migrateSlot(slotOf(moving), target, {
      afterBatch: async () => void during.push(await outcomeOf(rsmq.sendMessageAsync({ qname: moving, message: "during the migration" }))),
    });
    expect(during).to.deep.equal([{ error: "replicationTimeout" }]);
    // Moved for good: the source answers MOVED, and the write follows it to the target.
    expect(await rejectionOf(rsmq.sendMessageAsync({ qname: moving, message: "after the migration" }))).to.include({
      name: "replicationTimeout",
    });
    // Unconfirmed, not lost: the writes ran on the target (a read needs no WAIT).
    const peeked = await rsmq.peekDeadLettersAsync({ qname: moving, count: 10 });
    expect(peeked.map(({ message }) => message).sort()).to.deep.equal([
      "after the migration",
      "before the migration",
      "during the migration",
      "on the source",
    ]);

    // The registry's SADD too: created while the registry's slot is moving, the name is listed on
    // the target, unconfirmed (the queue itself, on the source, would be confirmed: it is never written).
    const created: Array<{ value?: unknown; error?: string }> = [];
    await cluster.migrateSlot(registrySlot, target, {
      afterBatch: async () => void created.push(await outcomeOf(rsmq.createQueueAsync({ qname: late }))),
    });
    expect(created).to.deep.equal([{ error: "replicationTimeout" }]);
    expect(await rsmq.listQueuesAsync()).to.include(late);
  });

  it("a cluster client passed in with a password (or a username) in `defaults` keeps it after a failover, and closing it closes the instance", async () => {
    const ns = uniqueNs();
    // A master that can fail over (the test above stopped one master's only replica).
    let master: ClusterNode | undefined;
    for (const candidate of await cluster.masters()) if (!master && (await cluster.replicasOf(candidate)).length > 0) master = candidate;
    const [[qname]] = await queueNamesPerMaster(cluster, ns, [master!]);
    const senders = [{ password: PASSWORD }, USER].map((credentials) => {
      // disableOfflineQueue, as docs/cluster.md asks of a client passed in: a dead master fails fast.
      const client = createCluster({
        rootNodes: cluster.rootNodes(),
        defaults: { ...credentials, disableOfflineQueue: true },
      }) as RedisClusterType;
      client.on("error", () => undefined);
      clients.push(client);
      return open({ client, ns, clusterRetryMs: 10_000 } as RedisSMQ.ConstructorOptions);
    });
    await senders[0].createQueueAsync({ qname });
    for (const [n, rsmq] of senders.entries()) await rsmq.sendMessageAsync({ qname, message: `before ${n}` });

    await cluster.killMasterAndWaitForFailover(cluster.slotOf(KeyLayout.for(ns, true).queue(qname).hash));
    for (const [n, rsmq] of senders.entries()) expect(await rsmq.sendMessageAsync({ qname, message: `after ${n}` })).to.be.a("string");
    const received = [
      ...(await senders[0].receiveMessagesAsync({ qname, count: 2 })).messages,
      ...(await senders[1].receiveMessagesAsync({ qname, count: 2 })).messages,
    ];
    expect(received.map(({ message }) => message).sort()).to.deep.equal(["after 0", "after 1", "before 0", "before 1"]);
    expect(connectionErrors.filter((error) => /NOAUTH|WRONGPASS/.test(error.message)).map(String)).to.deep.equal([]);

    // The failover replaced the client passed in by a fresh one of the instance's (rsmq.redis):
    // the one passed in is still the caller's, and closing it closes the instance, the fresh one too.
    const fresh = senders[0].redis as unknown as RedisClusterType;
    expect(fresh).to.not.equal(clients[0]);
    await clients[0].disconnect();
    expect((await rejectionOf(senders[0].listQueuesAsync())).name).to.equal("connectionClosed");
    await senders[0].quitAsync();
    expect(fresh.isOpen).to.equal(false);
  });
});
