/**
 * A password-protected cluster of its own (requirepass and masterauth on every node, plus an ACL
 * user; TLS too where openssl and a redis-server built with TLS exist), for what only shows there
 * or only shows when a topology changes under a call:
 * - `waitForReplicas` during a slot migration: a write that followed ASK to the target must be
 *   confirmed by the target's replicas, not by the source's (where the old slot map routes a WAIT).
 *   The target's only replica is stopped, so the target can confirm nothing: such a write must be
 *   rejected `replicationTimeout`, and still be there.
 * - A cluster client passed in (with a password, a username and password, or TLS in `defaults`)
 *   works through a failover as an owned one does: a send made the moment its master is killed
 *   succeeds once a replica is promoted, with no NOAUTH on the way. Such a client holds a call for
 *   the dead master in its offline queue, and the client rsmq-next then reads the topology into
 *   must keep the caller's credentials and TLS settings.
 * - Closing a cluster client passed in closes the instance, also after a failover replaced it by
 *   a fresh one of the instance's (test/transports/cluster/closing-rsmq-redis.test.ts has the rest of that).
 */
import { expect } from "chai";
import { createCluster } from "redis";
import type { RedisClusterType } from "redis";
import RedisSMQ = require("../../../lib");
import { KeyLayout } from "../../../lib/keys";
import { startTestCluster } from "../../support/cluster";
import type { ClusterNode, TestCluster } from "../../support/cluster";
import { queueNamesPerMaster } from "../../support/cluster-tools";
import { rejectionOf } from "../../support/old-rsmq";
import { onCluster, uniqueNs } from "../../support/server";
import { waitFor } from "../../support/worker";
import { tlsUnavailableReason } from "../../support/test-tls";
import { runsOn } from "../../support/targets";

runsOn("cluster");

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
    cluster = await startTestCluster({
      password: PASSWORD,
      users: [`${USER.username} on >${USER.password} ~* &* +@all`],
      // TLS where this machine can run it (openssl, a redis-server built with TLS); its test says when not.
      tls: tlsUnavailableReason() === undefined,
    });
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

  /** A sender of the failover test below: how it connects, its instance, and every error it or its client emitted. */
  interface Sender {
    readonly name: string;
    readonly rsmq: RedisSMQ;
    /** The cluster client passed in (undefined for the one opened from `cluster` options). */
    readonly client: RedisClusterType | undefined;
    readonly errors: Error[];
  }
  let tlsSender: Sender | undefined;

  it("a cluster client passed in keeps its credentials (and TLS) through a failover: a send made right after the kill succeeds, as on an owned one", async () => {
    const ns = uniqueNs();
    // A master that can fail over (the test above stopped one master's only replica).
    let master: ClusterNode | undefined;
    for (const candidate of await cluster.masters()) if (!master && (await cluster.replicasOf(candidate)).length > 0) master = candidate;
    const [[qname]] = await queueNamesPerMaster(cluster, ns, [master!]);
    // The same bound for all (the default, and the harness's own bound on a failover): a borrowed
    // client gets no more time than an owned one.
    const clusterRetryMs = 30_000;
    const borrowed = (name: string, options: Parameters<typeof createCluster>[0]): Sender => {
      const client = createCluster(options) as RedisClusterType;
      const errors: Error[] = [];
      client.on("error", (error: Error) => errors.push(error));
      clients.push(client);
      const rsmq = open({ client, ns, clusterRetryMs } as RedisSMQ.ConstructorOptions);
      rsmq.on("error", (error) => errors.push(error));
      return { name, rsmq, client, errors };
    };
    const ownedErrors: Error[] = [];
    const owned = open({
      cluster: { rootNodes: cluster.rootNodes(), defaults: { password: PASSWORD } },
      ns,
      clusterRetryMs,
    } as RedisSMQ.ConstructorOptions);
    owned.on("error", (error) => ownedErrors.push(error));
    const senders: Sender[] = [
      { name: "owned, password", rsmq: owned, client: undefined, errors: ownedErrors },
      // As a user would create them, with node-redis' defaults (an offline queue, reconnecting for ever)...
      borrowed("borrowed, password", { rootNodes: cluster.rootNodes(), defaults: { password: PASSWORD } }),
      borrowed("borrowed, username and password", { rootNodes: cluster.rootNodes(), defaults: { ...USER } }),
      // ...and failing fast, so that what follows the first error shows.
      borrowed("borrowed, password, no offline queue", {
        rootNodes: cluster.rootNodes(),
        defaults: { password: PASSWORD, disableOfflineQueue: true },
      }),
    ];
    if (cluster.tlsCa !== undefined) {
      const live = cluster.rootNodes().map(({ url }) => cluster.nodes.find((node) => node.url === url)!);
      tlsSender = borrowed("borrowed, TLS and password", {
        rootNodes: live.map((node) => ({ socket: { host: node.host, port: node.tlsPort! } })),
        defaults: { password: PASSWORD, socket: { tls: true, ca: cluster.tlsCa } },
      });
      senders.push(tlsSender);
    }
    await senders[0].rsmq.createQueueAsync({ qname });
    for (const { name, rsmq } of senders) await rsmq.sendMessageAsync({ qname, message: `before: ${name}` });

    // Sent the moment the master is dead: each send waits out the failover, then must succeed,
    // within clusterRetryMs (plus a margin for the promise chain), as an owned instance's does.
    const outcomes: Array<string | undefined> = [];
    const tookMs: number[] = [];
    await cluster.killMasterAndWaitForFailover(cluster.slotOf(KeyLayout.for(ns, true).queue(qname).hash), {
      afterKill: () => {
        const killedAt = Date.now();
        // Not awaited: the sends run while the failover does; waitFor below collects them.
        senders.forEach(({ name, rsmq }, n) => {
          void rsmq
            .sendMessageAsync({ qname, message: `during: ${name}` })
            .then(
              (id) => (outcomes[n] = typeof id === "string" ? "sent" : `answered ${String(id)}`),
              (error: Error) => (outcomes[n] = `${error.name}: ${error.message}`),
            )
            .finally(() => (tookMs[n] = Date.now() - killedAt));
        });
      },
    });
    await waitFor(
      () => senders.every((_, n) => outcomes[n] !== undefined),
      "the sends made during the failover",
      clusterRetryMs + 5_000,
    ).catch(() => undefined); // the expectation below names the sends still pending
    console.log(`      sends made at the kill settled after: ${senders.map(({ name }, n) => `${name} ${tookMs[n] ?? "-"} ms`).join(", ")}`);
    // Nothing ever knocks without the credentials (node-redis reports NOAUTH as an error event).
    const authErrors = (errors: Error[]) => errors.filter((error) => /NOAUTH|WRONGPASS/.test(error.message)).length;
    expect(
      senders.map(({ name, errors }, n) => `${name}: ${outcomes[n] ?? "still pending"}, ${authErrors(errors)} NOAUTH/WRONGPASS errors`),
      "the sends made during the failover",
    ).to.deep.equal(senders.map(({ name }) => `${name}: sent, 0 NOAUTH/WRONGPASS errors`));

    for (const { name, rsmq } of senders) expect(await rsmq.sendMessageAsync({ qname, message: `after: ${name}` })).to.be.a("string");
    const received: string[] = [];
    for (let page = 0; page < 10; page++) {
      const { messages } = await owned.receiveMessagesAsync({ qname, count: 10 });
      if (messages.length === 0) break;
      received.push(...messages.map(({ message }) => message));
    }
    const expected = senders.flatMap(({ name }) => [`before: ${name}`, `during: ${name}`, `after: ${name}`]);
    // A retried send may run twice (its reply lost with the master): at-least-once, so compared as a set.
    expect([...new Set(received)].sort()).to.deep.equal(expected.sort());
    for (const { name, errors } of senders)
      expect(errors.filter((error) => /NOAUTH|WRONGPASS/.test(error.message)).map(String), name).to.deep.equal([]);

    // The failover replaced the client passed in by a fresh one of the instance's (rsmq.redis):
    // the one passed in is still the caller's, and closing it closes the instance, the fresh one too.
    const { rsmq: closing, client: passedIn } = senders.find((sender) => sender.client !== undefined)!;
    const fresh = closing.redis as unknown as RedisClusterType;
    expect(fresh).to.not.equal(passedIn);
    await passedIn!.disconnect();
    expect((await rejectionOf(closing.listQueuesAsync())).name).to.equal("connectionClosed");
    await closing.quitAsync();
    expect(fresh.isOpen).to.equal(false);
  });

  it("a cluster client passed in with TLS settings: the client opened after a failover has them (and the credentials)", function () {
    if (cluster.tlsCa === undefined) {
      console.log(`      skipped: ${tlsUnavailableReason()}`);
      this.skip();
    }
    if (!tlsSender) this.skip();
    const { rsmq, client } = tlsSender;
    // rsmq.redis is the client in use: after the failover, one read afresh from the topology.
    const current = rsmq.redis as unknown as RedisClusterType;
    expect(current, "a client opened after the failover").to.not.equal(client);
    const nodeOptions = [...current.masters, ...current.replicas]
      .map(
        (node) =>
          node.client as { options?: { password?: string; socket?: { tls?: boolean; ca?: unknown } } } | Promise<unknown> | undefined,
      )
      .flatMap((nodeClient) => (nodeClient && !(nodeClient instanceof Promise) && nodeClient.options ? [nodeClient.options] : []));
    expect(nodeOptions).to.not.deep.equal([]);
    for (const options of nodeOptions) {
      expect(options.password).to.equal(PASSWORD);
      expect(options.socket?.tls).to.equal(true);
      expect(options.socket?.ca).to.equal(cluster.tlsCa);
    }
  });
});
