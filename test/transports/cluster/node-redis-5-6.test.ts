/**
 * A node-redis 5 or 6 cluster client (`createCluster` of `redis5` / `redis6`, RESP2 and RESP3)
 * passed in as `client`: every operation answers as on node-redis 4, a Worker is woken by a send
 * from another instance (sharded pub/sub on the slot's master, not its idle timer), `rsmq.redis`
 * is the client passed, quitAsync() leaves it open, closing it (close() or destroy() too) closes
 * the instance, and each operation is one EVALSHA.
 */
import { expect } from "chai";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../../lib");
import { subscribersOf } from "../../support/inspect";
import { rejectionOf } from "../../support/old-rsmq";
import { keysOf, onCluster, plainClient, testCluster, uniqueNs } from "../../support/server";
import { clusterTestClient } from "../../support/test-clients";
import type { TestClient, TestClientKind } from "../../support/test-clients";
import { commandStatsDuring } from "../../support/wire";
import { Cleanup, WorkerLog, loadPollScripts, waitFor } from "../../support/worker";
import { runsOn } from "../../support/targets";

runsOn("cluster");

const { Worker } = RedisSMQ;

const KINDS: TestClientKind[] = ["noderedis5-resp2", "noderedis5-resp3", "noderedis6-resp2", "noderedis6-resp3"];

/** Far beyond how long a wake takes: a message handled before it came by a wake, not by the timer. */
const IDLE_CAP_MS = 60_000;

/** Well under clusterRetryMs: an operation that takes longer was retried, not answered. */
const ANSWER_WITHIN_MS = 3_000;

/** Whether the node-redis cluster client is open, by its own flag. */
function isOpen(client: unknown): boolean {
  return (client as { isOpen: boolean }).isOpen;
}

for (const kind of KINDS) {
  describe(`cluster: a ${kind} cluster client passed in`, function () {
    this.timeout(30_000);
    let plain: RedisClientType;
    let made: TestClient;
    const cleanup = new Cleanup();

    before(async function () {
      if (!onCluster()) this.skip();
      plain = await plainClient();
    });
    beforeEach(() => {
      made = clusterTestClient(kind, testCluster().rootNodes());
    });
    afterEach(async () => {
      await cleanup.run();
      made?.close();
    });
    after(async () => plain?.quit());

    function passing(ns: string, extra: object = {}): RedisSMQ {
      const rsmq = cleanup.rsmq(
        new RedisSMQ({ client: made.client, ns, ...extra } as unknown as ConstructorParameters<typeof RedisSMQ>[0]),
      );
      rsmq.on("error", () => undefined);
      return rsmq;
    }

    it("creates, sends, receives and deletes, each answered at once", async () => {
      const rsmq = passing(uniqueNs());
      const timed = async <T>(call: () => Promise<T>): Promise<T> => {
        const started = Date.now();
        const result = await call();
        expect(Date.now() - started, "answered without retries").to.be.below(ANSWER_WITHIN_MS);
        return result;
      };
      expect(await timed(() => rsmq.createQueueAsync({ qname: "q" }))).to.equal(1);
      const id = await timed(() => rsmq.sendMessageAsync({ qname: "q", message: "héllo \u0000 wörld" }));
      const received = await timed(() => rsmq.receiveMessageAsync({ qname: "q" }));
      expect(received).to.include({ id, message: "héllo \u0000 wörld", rc: 1 });
      expect(await timed(() => rsmq.deleteMessageAsync({ qname: "q", id }))).to.equal(1);
      expect(await timed(() => rsmq.receiveMessageAsync({ qname: "q" }))).to.deep.equal({});
      expect(await timed(() => rsmq.listQueuesAsync())).to.deep.equal(["q"]);
      expect(await timed(() => rsmq.deleteQueueAsync({ qname: "q" }))).to.equal(1);
    });

    it("passed in while it is still connecting, it serves every call: no copy of it is made (one named connection per master)", async () => {
      // connect() started and not awaited: node-redis 6 refuses calls ("The client is offline")
      // until it has connected to every master, though its slot map is read before that.
      made.close();
      const name = `caller-${uniqueNs()}`;
      made = clusterTestClient(kind, testCluster().rootNodes(), { name });
      const rsmq = passing(uniqueNs());
      await rsmq.createQueueAsync({ qname: "q" });
      // Queues on every master, so a copy would have had to connect to each.
      const qnames = ["q", "q-1", "q-2", "q-3", "q-4", "q-5", "q-6", "q-7", "q-8", "q-9"];
      for (const qname of qnames.slice(1)) await rsmq.createQueueAsync({ qname });
      for (const qname of qnames) {
        const id = await rsmq.sendMessageAsync({ qname, message: qname });
        expect(await rsmq.receiveMessageAsync({ qname })).to.include({ id, message: qname });
      }
      const named: number[] = [];
      for (const master of await testCluster().masters()) {
        const node = createClient({ url: master.url });
        await node.connect();
        const list = await node.clientList();
        await node.quit();
        named.push(list.filter((connection) => connection.name === name).length);
      }
      expect(named, "connections named as the caller's client, master by master").to.deep.equal([1, 1, 1]);
    });

    it("refuses a bad queue name with the same error as on node-redis 4 (a reply, not a retried failure)", async () => {
      const rsmq = passing(uniqueNs());
      await rsmq.createQueueAsync({ qname: "q" });
      const started = Date.now();
      const error = await rsmq.createQueueAsync({ qname: "q" }).then(
        () => undefined,
        (caught: Error) => caught,
      );
      expect(error?.name).to.equal("queueExists");
      expect(Date.now() - started).to.be.below(ANSWER_WITHIN_MS);
    });

    it("wakes a Worker for a send from another RedisSMQ instance, through SSUBSCRIBE on the slot's master", async () => {
      const ns = uniqueNs();
      const sender = passing(ns);
      await sender.createQueueAsync({ qname: "q" });
      const rsmq = passing(ns);
      const handled: string[] = [];
      const worker = cleanup.worker(
        new Worker(rsmq, { qname: "q", maxIdleSleepMs: IDLE_CAP_MS, handler: (message) => void handled.push(message.message) }),
      );
      const log = new WorkerLog(worker);
      worker.start();
      const channel = keysOf(ns, "q").realtimeChannel;
      await waitFor(async () => (await subscribersOf(plain, channel)) === 1 && log.asleep, "the worker to listen and sleep");
      const other = cleanup.rsmq(new RedisSMQ({ cluster: { rootNodes: testCluster().rootNodes() }, ns }));
      await other.sendMessageAsync({ qname: "q", message: "wake up" });
      await waitFor(() => handled.length === 1, "the worker to handle the message", 5_000);
      expect(handled).to.deep.equal(["wake up"]);
      expect(log.named("wake").map((event) => event.args[0])).to.include("woken");
      await worker.stop();
      await waitFor(async () => (await subscribersOf(plain, channel)) === 0, "the worker's subscription to end when it stops");
    });

    it("gives the client passed as rsmq.redis, and quitAsync() leaves it open and working", async () => {
      const rsmq = passing(uniqueNs());
      expect(rsmq.redis === made.client, "rsmq.redis is the client passed").to.equal(true);
      await rsmq.createQueueAsync({ qname: "q" });
      expect(rsmq.redis === made.client, "rsmq.redis is the client passed").to.equal(true);
      await rsmq.quitAsync();
      expect(isOpen(made.client)).to.equal(true);
      const client = made.client as { sendCommand(key: string, readonly: boolean, args: string[]): Promise<unknown> };
      expect(await client.sendCommand("k", false, ["SET", "k", "v"])).to.equal("OK");
    });

    for (const how of ["close", "destroy"] as const) {
      it(`closing the client passed in with ${how}() closes the instance: its calls are refused connectionClosed`, async () => {
        const rsmq = passing(uniqueNs());
        await rsmq.createQueueAsync({ qname: "q" });
        await (made.client as Record<typeof how, () => unknown>)[how]();
        expect((await rejectionOf(rsmq.listQueuesAsync())).name).to.equal("connectionClosed");
      });
    }

    it("sends each operation as one EVALSHA (sendMessage, receiveMessage)", async () => {
      const ns = uniqueNs();
      const rsmq = passing(ns);
      await rsmq.createQueueAsync({ qname: "q" });
      await loadPollScripts(ns, "q");
      // Loaded by a first call, so no NOSCRIPT falls into the count.
      const first = await rsmq.sendMessageAsync({ qname: "q", message: "warm" });
      await rsmq.deleteMessageAsync({ qname: "q", id: first });
      const sent = await commandStatsDuring(() => rsmq.sendMessageAsync({ qname: "q", message: "m" }));
      expect(sent).to.deep.include({ evalsha: 1 });
      expect(sent).not.to.have.property("eval");
      const received = await commandStatsDuring(() => rsmq.receiveMessageAsync({ qname: "q" }));
      expect((received.evalsha ?? 0) + (received.evalsha_ro ?? 0)).to.equal(1);
      expect(received).not.to.have.property("eval");
    });
  });
}
