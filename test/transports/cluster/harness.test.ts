/**
 * The Redis Cluster test harness itself: the cluster it starts is complete and usable through a
 * node-redis cluster client, and each reshaping step (slot migration, failover, restart of the
 * dead node) leaves a cluster that client can still read all its data from. The tests run in
 * order on one cluster, each starting from the topology the previous one left.
 * Skipped when redis-server / redis-cli 7+ are not on PATH.
 */
import { expect } from "chai";
import { createClient, createCluster } from "redis";
import { SLOT_COUNT, clusterUnavailableReason, startTestCluster } from "../../support/cluster";
import type { ClusterNode, TestCluster } from "../../support/cluster";
import { runsOn } from "../../support/targets";

runsOn("cluster");

type ClusterClient = ReturnType<typeof createCluster>;

describe("cluster harness", function () {
  this.timeout(60_000);
  let cluster: TestCluster;
  const clusterClients: ClusterClient[] = [];
  /** Keys written through the cluster client, spread over many slots, with their values. */
  const written = new Map<string, string>();

  before(async function () {
    const reason = clusterUnavailableReason();
    if (reason) {
      console.warn(`      skipped: ${reason}`);
      this.skip();
    }
    cluster = await startTestCluster({ masters: 3, replicasPerMaster: 1 });
  });

  after(async () => {
    await Promise.all(clusterClients.map((client) => client.disconnect().catch(() => undefined)));
    await cluster?.close();
  });

  /** A connected node-redis cluster client on the live nodes, closed after the suite. */
  async function clusterClient(): Promise<ClusterClient> {
    const client = createCluster({ rootNodes: cluster.rootNodes() });
    client.on("error", () => undefined);
    clusterClients.push(client);
    await client.connect();
    return client;
  }

  /** Runs one command on one node through a plain connection. */
  async function onNode(node: ClusterNode, args: string[]): Promise<unknown> {
    const client = createClient({ url: node.url });
    client.on("error", () => undefined);
    await client.connect();
    try {
      return await client.sendCommand(args);
    } finally {
      await client.disconnect();
    }
  }

  async function readAll(client: ClusterClient): Promise<Map<string, string | null>> {
    const values = new Map<string, string | null>();
    for (const key of written.keys()) values.set(key, await client.get(key));
    return values;
  }

  it("starts 3 masters with one replica each, the masters covering all 16384 slots", async () => {
    const masters = await cluster.masters();
    const replicas = await cluster.replicas();
    expect(masters).to.have.length(3);
    expect(replicas).to.have.length(3);
    expect(cluster.nodes).to.have.length(6);
    expect(cluster.rootNodes()).to.have.length(6);

    const ranges = (await onNode(masters[0], ["CLUSTER", "SLOTS"])) as Array<
      [number, number, [string, number, string], ...Array<[string, number, string]>]
    >;
    expect(ranges.reduce((sum, [from, to]) => sum + to - from + 1, 0)).to.equal(SLOT_COUNT);
    expect(new Set(ranges.map((range) => range[2][2]))).to.deep.equal(new Set(masters.map((master) => master.id)));
    for (const range of ranges) expect(range.slice(3), `replicas of slots ${range[0]}-${range[1]}`).to.have.length(1);
  });

  it("computes hash slots as Redis does, hash tags included", async () => {
    const keys = [
      "",
      "a",
      "foo",
      "rsmq:{jobs}:Q",
      "rsmq:{jobs}",
      "{myapp}:jobs",
      "a{}b",
      "{}{x}",
      "{x}{y}",
      "a{b",
      "a}b{c}",
      "ü{ñ}",
      "rsmq:QUEUES",
    ];
    for (const key of keys) {
      expect(cluster.slotOf(key), key).to.equal(await onNode(cluster.nodes[0], ["CLUSTER", "KEYSLOT", key]));
    }
    expect(cluster.slotOf("rsmq:{jobs}:Q")).to.equal(cluster.slotOf("{jobs}"));
    expect(cluster.slotOf("{}{x}")).to.not.equal(cluster.slotOf("x"));
  });

  it("serves keys in every shard through a node-redis cluster client", async () => {
    const client = await clusterClient();
    for (let i = 0; i < 300; i++) written.set(`key:${i}`, `value ${i}`);
    for (const [key, value] of written) await client.set(key, value);

    expect(await readAll(client)).to.deep.equal(written);
    const owners = new Set<string>();
    for (const key of written.keys()) owners.add((await cluster.masterOfSlot(cluster.slotOf(key))).id);
    expect(owners.size).to.equal(3);
  });

  it("migrates a slot with its keys to another master, readable before, during and after", async () => {
    const client = clusterClients[0];
    const keys = Array.from({ length: 25 }, (_, i) => `{moving}:${i}`);
    for (const key of keys) {
      await client.set(key, `moving ${key}`);
      written.set(key, `moving ${key}`);
    }
    const slot = cluster.slotOf("{moving}");
    const source = await cluster.masterOfSlot(slot);
    const target = (await cluster.masters()).find((master) => master.id !== source.id)!;

    const seenMidway: Array<string | null> = [];
    const { keysMoved } = await cluster.migrateSlot(slot, target, {
      keysPerBatch: 10,
      afterBatch: async ({ keysMoved: moved }) => {
        if (moved !== 10) return;
        // Half moved: keys on either side are readable, and a new key goes to the target (ASK).
        for (const key of keys) seenMidway.push(await client.get(key));
        await client.set("{moving}:new", "written mid-migration");
        written.set("{moving}:new", "written mid-migration");
      },
    });

    expect(keysMoved).to.equal(25);
    expect(seenMidway).to.deep.equal(keys.map((key) => `moving ${key}`));
    expect((await cluster.masterOfSlot(slot)).id).to.equal(target.id);
    expect(await onNode(target, ["CLUSTER", "COUNTKEYSINSLOT", String(slot)])).to.equal(26);
    expect(await onNode(source, ["CLUSTER", "COUNTKEYSINSLOT", String(slot)])).to.equal(0);
    // The client still has the old slot map: MOVED makes it look again.
    expect(await readAll(client)).to.deep.equal(written);
    expect(await readAll(await clusterClient())).to.deep.equal(written);
  });

  it("migrates an empty slot", async () => {
    let slot = 0;
    while ((await onNode(await cluster.masterOfSlot(slot), ["CLUSTER", "COUNTKEYSINSLOT", String(slot)])) !== 0) slot++;
    const source = await cluster.masterOfSlot(slot);
    const target = (await cluster.masters()).find((master) => master.id !== source.id)!;
    expect(await cluster.migrateSlot(slot, target)).to.deep.equal({ keysMoved: 0 });
    expect((await cluster.masterOfSlot(slot)).id).to.equal(target.id);
  });

  let killed: ClusterNode;
  let promoted: ClusterNode;

  it("kills a master and waits until its replica has taken over, with the shard's data", async () => {
    const slot = cluster.slotOf("key:0");
    const before = await cluster.masters();
    ({ killed, promoted } = await cluster.killMasterAndWaitForFailover(slot));

    expect(before.map((master) => master.id)).to.include(killed.id);
    expect(promoted.id).to.not.equal(killed.id);
    expect((await cluster.masterOfSlot(slot)).id).to.equal(promoted.id);
    const after = (await cluster.masters()).map((master) => master.id);
    expect(after).to.have.length(3);
    expect(after).to.include(promoted.id);
    expect(after).to.not.include(killed.id);
    expect(cluster.rootNodes().map((node) => node.url)).to.not.include(killed.url);

    expect(await readAll(await clusterClient())).to.deep.equal(written);
  });

  it("restarts the killed master, which rejoins as a replica of the promoted one", async () => {
    await cluster.restartNode(killed);

    expect((await cluster.replicas()).map((node) => node.id)).to.include(killed.id);
    expect((await cluster.masters()).map((node) => node.id))
      .to.have.length(3)
      .and.include(promoted.id);
    const replication = String(await onNode(killed, ["INFO", "replication"]));
    expect(replication).to.match(/role:slave/);
    expect(replication).to.include(`master_port:${promoted.port}`);
    expect(replication).to.include("master_link_status:up");

    expect(await readAll(await clusterClient())).to.deep.equal(written);
  });
});
