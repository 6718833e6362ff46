/**
 * The Sentinel test harness itself (test/support/sentinel.ts): the set-up it starts is complete
 * (three sentinels agreeing on a primary, which has a linked replica), a plain ioredis 5 client
 * configured with the sentinels reaches the primary, and each step (a SIGKILL of the primary, the
 * dead node brought back, a manual SENTINEL FAILOVER) leaves a set-up that client still reads all
 * its data from. The tests run in order on one set-up. close() leaves no process behind.
 */
import { expect } from "chai";
import { Redis } from "ioredis";
import { startSentinelSetup } from "../../support/sentinel";
import type { SentinelSetup, SentinelSetupNode } from "../../support/sentinel";
import { runsOn } from "../../support/targets";

runsOn("single");

describe("sentinel harness", function () {
  // A fault may first wait out a sentinel's TILT mode (up to 35 s, see support/sentinel.ts).
  this.timeout(70_000);
  let setup: SentinelSetup;
  const clients: Redis[] = [];

  before(async () => {
    setup = await startSentinelSetup();
  });
  after(async () => {
    for (const client of clients) client.disconnect();
    await setup?.close();
  });

  function sentinelClient(): Redis {
    const client = new Redis({
      sentinels: setup.sentinels.map(({ host, port }) => ({ host, port })),
      name: setup.masterName,
      failoverDetector: true,
      lazyConnect: true,
    });
    client.on("error", () => undefined);
    clients.push(client);
    return client;
  }

  /**
   * `call`'s answer once the client can make it again: its first calls after a failover may fail.
   * A client that ended is connected again. ioredis ends a Sentinel client when its failover
   * detector (on +switch-master) disconnects the connector while a reconnect is still asking the
   * sentinels for the primary (SentinelConnector then rejects that connect with "Connection is
   * closed."): on a loaded machine the two overlap, and the client stays ended until asked.
   */
  async function through<T>(client: Redis, call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (attempt >= 50) throw error;
        if (client.status === "end") client.connect().catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  /** The value of `key` once the client can read it again. */
  function readThrough(client: Redis, key: string): Promise<string | null> {
    return through(client, () => client.get(key));
  }

  let first: SentinelSetupNode;

  it("starts a primary with a linked replica and three sentinels that agree on it", async () => {
    const [primary, replica] = setup.dataNodes;
    first = primary;
    expect(await setup.primary()).to.equal(primary);
    expect(((await setup.run(primary, ["ROLE"])) as unknown[])[0]).to.equal("master");
    expect(((await setup.run(replica, ["ROLE"])) as unknown[])[0]).to.equal("slave");
    expect(String(await setup.run(primary, ["CONFIG", "GET", "appendfsync"]))).to.include("always");
    for (const sentinel of setup.sentinels) {
      const [host, port] = (await setup.run(sentinel, ["SENTINEL", "GET-MASTER-ADDR-BY-NAME", setup.masterName])) as string[];
      expect({ host, port: Number(port) }).to.deep.equal({ host: primary.host, port: primary.port });
      const ckquorum = String(await setup.run(sentinel, ["SENTINEL", "CKQUORUM", setup.masterName]));
      expect(ckquorum).to.match(/^OK 3 usable Sentinels/);
    }
  });

  it("a plain ioredis client with the sentinels writes to the primary, and the replica has the write", async () => {
    const client = sentinelClient();
    await client.connect();
    await client.set("harness:a", "1");
    expect(await client.wait(1, 2_000)).to.equal(1);
    expect(await setup.run(setup.dataNodes[1], ["GET", "harness:a"])).to.equal("1");
  });

  it("after a SIGKILL of the primary, the sentinels promote the replica and the client reads its data there", async () => {
    const client = clients[0];
    const killed = await setup.killPrimary();
    expect(killed).to.equal(first);
    expect(killed.alive).to.equal(false);
    const promoted = await setup.waitForNewPrimary(killed);
    expect(promoted).to.equal(setup.dataNodes[1]);
    expect(await readThrough(client, "harness:a")).to.equal("1");
    await through(client, () => client.set("harness:b", "2"));
  });

  it("the killed node, started again with its AOF, becomes a linked replica of the new primary", async () => {
    await setup.restart(first);
    expect(first.alive).to.equal(true);
    expect(((await setup.run(first, ["ROLE"])) as unknown[])[0]).to.equal("slave");
    expect(await through(clients[0], () => clients[0].wait(1, 2_000))).to.equal(1);
    expect(await setup.run(first, ["GET", "harness:b"])).to.equal("2");
  });

  it("a manual SENTINEL FAILOVER moves the primary back (the old one is left running)", async () => {
    const old = await setup.primary();
    await setup.failover();
    // Not waiting for the old primary to become a replica: the sentinels convert it only once it
    // has reported itself a primary for 8 s, and the failover suite waits for that.
    const promoted = await setup.waitForNewPrimary(old);
    expect(promoted).to.equal(first);
    expect(old.alive).to.equal(true);
    // failoverDetector: true moves the client to the new primary.
    const client = clients[0];
    await through(client, () => client.set("harness:c", "3"));
    expect(await setup.run(promoted, ["GET", "harness:c"])).to.equal("3");
    expect(await readThrough(client, "harness:a")).to.equal("1");
  });

  it("close() stops every process it started", async () => {
    const nodes = [...setup.sentinels, ...setup.dataNodes];
    const pids = nodes.map((node) => node.pid);
    expect(pids.every((pid) => typeof pid === "number")).to.equal(true);
    for (const client of clients) client.disconnect();
    await setup.close();
    expect(nodes.map((node) => node.alive)).to.deep.equal(nodes.map(() => false));
    for (const pid of pids) expect(isRunning(pid!), `process ${pid}`).to.equal(false);
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
