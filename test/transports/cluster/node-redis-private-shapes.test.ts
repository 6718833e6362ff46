/**
 * The node-redis v4 cluster client shapes lib/transports/node-redis/private-shapes.ts reads (slot map,
 * node list, node clients and their options), each against a real cluster client on the test
 * cluster: what a node-redis 4.x upgrade must keep. The client accessors are tested on one server
 * in test/transports/node-redis/private-shapes.test.ts.
 */
import { expect } from "chai";
import { createCluster } from "redis";
import type { RedisClientType, RedisClusterType } from "redis";
import {
  firstMasterClient,
  isClusterClient,
  knownNodeAddresses,
  nodeClientAt,
  nodeOptionsOf,
  slotMasterAddress,
  slotMasterClient,
  slotMasterClientState,
  socketOptionsOf,
} from "../../../lib/transports/node-redis/private-shapes";
import type { TestCluster } from "../../support/cluster";
import { onCluster, testCluster } from "../../support/server";
import { runsOn } from "../../support/targets";

runsOn("cluster");

describe("cluster: node-redis private shapes of a cluster client", function () {
  this.timeout(30_000);
  let cluster: TestCluster;
  const opened: RedisClusterType[] = [];
  const slot = 1234;

  before(function () {
    if (!onCluster()) this.skip();
    cluster = testCluster();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((client) => client.disconnect().catch(() => undefined)));
  });

  /** A cluster client on the test cluster (connected unless `connect: false`), closed after the test. */
  async function clusterClient(options: { minimizeConnections?: boolean; connect?: boolean } = {}): Promise<RedisClusterType> {
    const client = createCluster({
      rootNodes: cluster.rootNodes(),
      minimizeConnections: options.minimizeConnections,
      defaults: { name: "private-shapes-test", socket: { connectTimeout: 1_234 } },
    }) as RedisClusterType;
    client.on("error", () => undefined);
    opened.push(client);
    if (options.connect !== false) await client.connect();
    return client;
  }

  /** The cluster id of the node a node client reaches. */
  async function nodeId(client: RedisClientType): Promise<string> {
    return String(await client.sendCommand(["CLUSTER", "MYID"]));
  }

  it("isClusterClient: a createCluster client", async () => {
    expect(isClusterClient(await clusterClient({ connect: false }))).to.equal(true);
  });

  it("slotMasterAddress: the host:port of the slot's master", async () => {
    const client = await clusterClient();
    const master = await cluster.masterOfSlot(slot);
    expect(slotMasterAddress(client, slot)).to.equal(`${master.host}:${master.port}`);
  });

  it("knownNodeAddresses: every live master, masters first, each once", async () => {
    const client = await clusterClient();
    const known = knownNodeAddresses(client);
    const masters = (await cluster.masters()).map((node) => `${node.host}:${node.port}`);
    expect(new Set(known).size).to.equal(known.length);
    expect(known.slice(0, masters.length)).to.have.members(masters);
    const all = cluster.nodes.map((node) => `${node.host}:${node.port}`);
    for (const address of known) expect(all).to.include(address);
  });

  it("slotMasterClient and nodeClientAt: a client on that very node", async () => {
    const client = await clusterClient();
    const master = await cluster.masterOfSlot(slot);
    expect(await nodeId(await slotMasterClient(client, slot)!)).to.equal(master.id);
    expect(await nodeId(await nodeClientAt(client, `${master.host}:${master.port}`)!)).to.equal(master.id);
    expect(nodeClientAt(client, "127.0.0.1:1")).to.equal(undefined);
  });

  it("slotMasterClientState: none before a call needs the node (minimizeConnections), then a ready client", async () => {
    const client = await clusterClient({ minimizeConnections: true });
    const master = await cluster.masterOfSlot(slot);
    expect(slotMasterClientState(client, slot)).to.equal(undefined);
    const connecting = slotMasterClient(client, slot);
    expect(slotMasterClientState(client, slot)).to.be.instanceOf(Promise);
    await connecting;
    const after = slotMasterClientState(client, slot) as { isReady: boolean };
    expect(after).to.not.be.instanceOf(Promise);
    expect(after.isReady).to.equal(true);
    expect(slotMasterAddress(client, slot)).to.equal(`${master.host}:${master.port}`);
  });

  it("nodeOptionsOf and firstMasterClient: the cluster's node settings, read back from a node client", async () => {
    const unconnected = await clusterClient({ connect: false });
    expect(nodeOptionsOf(unconnected)).to.equal(undefined);
    const client = await clusterClient();
    const options = nodeOptionsOf(client)!;
    expect(options.name).to.equal("private-shapes-test");
    expect(options.socket).to.include({ connectTimeout: 1_234 });
    const template = await firstMasterClient(client);
    expect(socketOptionsOf(template)).to.include({ connectTimeout: 1_234 });
    expect(await template.sendCommand(["CLIENT", "GETNAME"])).to.equal("private-shapes-test");
  });
});
