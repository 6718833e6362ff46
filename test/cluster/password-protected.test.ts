/**
 * A password-protected cluster of its own (requirepass and masterauth on every node, plus an ACL
 * user), for what only shows there or only shows when a topology changes under a call:
 * - `waitForReplicas` during a slot migration: a write that followed ASK to the target must be
 *   confirmed by the target's replicas, not by the source's (where the old slot map routes a WAIT).
 *   The target's only replica is stopped, so the target can confirm nothing: such a write must be
 *   rejected `replicationTimeout`, and still be there.
 * - A cluster client passed in with credentials in `defaults` keeps them when a failover makes
 *   rsmq-next read the topology afresh into a new client.
 */
import { expect } from "chai";
import { createCluster, type RedisClusterType } from "redis";
import RedisSMQ = require("../../lib/index");
import { KeyLayout } from "../../lib/keys";
import { startTestCluster, type TestCluster } from "../support/cluster";
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

  it("a cluster client passed in with a password (or a username) in `defaults` keeps it after a failover", async () => {
    const ns = uniqueNs();
    const [master] = await cluster.masters();
    const [[qname]] = await queueNamesPerMaster(cluster, ns, [master]);
    const senders = [{ password: PASSWORD }, USER].map((credentials) => {
      // disableOfflineQueue, as the README asks of a client passed in: a dead master fails fast.
      const client = createCluster({ rootNodes: cluster.rootNodes(), defaults: { ...credentials, disableOfflineQueue: true } }) as RedisClusterType;
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
  });
});
