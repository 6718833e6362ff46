/**
 * What Redis 7 script flags buy, shown on a real server (and on the cluster target, on the masters
 * that hold the queues):
 * - over `maxmemory` with `noeviction`, consumers still drain the queue (their scripts declare
 *   `allow-oom`) while producers are refused with the named `outOfMemory` error and write nothing;
 * - during `CLIENT PAUSE WRITE` (what FAILOVER uses), the read-only scripts (`no-writes`) and an idle
 *   Worker's look-up answer at once instead of waiting out the pause.
 */
import { expect } from "chai";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { readPeek, readQueueStats } from "../../lib/cli/queue-reads";
import { nextDue } from "../../lib/operations/next-due";
import { internalsOf } from "../../lib/internals";
import { connectionOptions, onCluster, plainClient, testCluster, testRedis, uniqueNs } from "../support/server";
import { exactState } from "../support/state";
import { Cleanup, WorkerLog, queueServer, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;

/** A plain client on one server, closed by `cleanup`. */
async function serverClient(cleanup: Cleanup, url: string): Promise<RedisClientType> {
  const client = createClient({ url }) as RedisClientType;
  client.on("error", () => undefined);
  await client.connect();
  cleanup.add(() => client.quit());
  return client;
}

/** Every server that holds data: the single server, or every master of the cluster. */
async function dataServers(): Promise<string[]> {
  if (!onCluster()) return [testRedis().url];
  return (await testCluster().masters()).map((node) => node.url);
}

async function usedMemory(client: RedisClientType): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await client.info("memory"))![1]);
}

describe("Redis 7 script flags: a full server and a write pause", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => cleanup.run());

  describe("over maxmemory with noeviction", () => {
    const restore: Array<() => Promise<unknown>> = [];
    afterEach(async () => {
      // Newest first: each lowering saved what the one before it had set.
      for (const undo of restore.splice(0).reverse()) await undo();
    });

    /** Lowers maxmemory (noeviction) on every data server, restored after the test. */
    async function limitMemory(bytesAboveUsed: (used: number) => number): Promise<void> {
      for (const url of await dataServers()) {
        const client = await serverClient(cleanup, url);
        const before = await client.configGet("maxmemory*");
        restore.push(() => client.configSet({ maxmemory: before.maxmemory, "maxmemory-policy": before["maxmemory-policy"] }));
        await client.configSet({ "maxmemory-policy": "noeviction", maxmemory: String(bytesAboveUsed(await usedMemory(client))) });
      }
    }

    it("drains to empty with a Worker, deletes a queue, and refuses producers with outOfMemory, writing nothing", async () => {
      await rsmq.createQueueAsync({ qname: "other" });
      await rsmq.sendMessageAsync({ qname: "other", message: "x" });
      // Fill the queue's server for real: 256 KiB of headroom, then 1 KiB messages until Redis says no.
      await limitMemory((used) => used + 256 * 1024);
      const body = "m".repeat(1024);
      let stored = 0;
      let refusal: Error | undefined;
      while (!refusal) {
        if (stored > 5_000) throw new Error("the server never filled up");
        try {
          await rsmq.sendMessageAsync({ qname: "q", message: body });
          stored += 1;
        } catch (error) {
          refusal = error as Error;
        }
      }
      expect(stored).to.be.above(10);
      expect(refusal.name, refusal.message).to.equal("outOfMemory");
      // Keep every server over its limit for the rest of the test, however much the consumers free.
      await limitMemory(() => 1);

      const plain = await plainClient();
      cleanup.add(() => plain.quit());
      const before = await exactState(plain, ns);
      const refused = [
        rsmq.sendMessageAsync({ qname: "q", message: "one more" }),
        rsmq.createQueueAsync({ qname: "new" }),
        rsmq.setQueueAttributesAsync({ qname: "q", vt: 5 }),
      ];
      for (const call of refused) {
        const error = await call.then(
          () => expect.fail("a producer was let in over maxmemory"),
          (reason: Error) => reason,
        );
        expect(error.name, error.message).to.equal("outOfMemory");
        expect(error.message)
          .to.match(/maxmemory/)
          .and.to.match(/nothing was written/i);
      }
      expect(await exactState(plain, ns)).to.deep.equal(before);

      // The shrinking calls one by one, then a Worker for the rest.
      expect(await rsmq.deleteQueueAsync({ qname: "other" })).to.equal(1);
      expect(await rsmq.popMessageAsync({ qname: "q" })).to.have.property("id");
      const received = (await rsmq.receiveMessageAsync({ qname: "q" })) as { id: string };
      expect(await rsmq.changeMessageVisibilityAsync({ qname: "q", id: received.id, vt: 0 })).to.equal(1);
      const batch = await rsmq.receiveMessagesAsync({ qname: "q", count: 2 });
      expect(await rsmq.deleteMessagesAsync({ qname: "q", ids: batch.messages.map(({ id }) => id) })).to.deep.equal([1, 1]);
      let handled = 3;
      const worker = cleanup.worker(new Worker(rsmq, { qname: "q", handler: () => void (handled += 1), batchSize: 50 }));
      worker.start();
      await waitFor(() => handled === stored, `the Worker to drain ${stored} messages (handled ${handled})`, 20_000);
      await waitFor(async () => (await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs === 0, "the queue to be empty");
      expect(await rsmq.listQueuesAsync()).to.deep.equal(["q"]);
    });
  });

  describe("during CLIENT PAUSE WRITE", () => {
    /**
     * Pauses writes on the queue's server until the test unpauses it (the pause itself is long, so
     * only the unpause ends it); `order` records "unpause" just before CLIENT UNPAUSE is sent.
     */
    async function pauseWrites(order: string[]): Promise<() => Promise<void>> {
      const { host, port } = await queueServer(ns, "q");
      const admin = await serverClient(cleanup, `redis://${host}:${port}`);
      let paused = true;
      const unpause = async (): Promise<void> => {
        if (!paused) return;
        paused = false;
        order.push("unpause");
        await admin.sendCommand(["CLIENT", "UNPAUSE"]);
      };
      cleanup.add(unpause);
      await admin.sendCommand(["CLIENT", "PAUSE", "30000", "WRITE"]);
      return unpause;
    }

    it("answers getQueueAttributes, peekDeadLetters and the stats before the pause ends", async () => {
      await rsmq.sendMessageAsync({ qname: "q", message: "x" });
      const reads = (order: string[]): Array<Promise<unknown>> => [
        rsmq.getQueueAttributesAsync({ qname: "q" }).then((attributes) => order.push(`attributes ${attributes.msgs}`)),
        rsmq.peekDeadLettersAsync({ qname: "q" }).then((peeked) => order.push(`peek ${peeked.length}`)),
        readQueueStats(rsmq, "q").then((stats) => order.push(`stats ${stats.msgs}`)),
      ];
      // The server must know the scripts: it cannot tell an unknown script's flags from its SHA1,
      // so an EVALSHA it has not cached waits out the pause (see docs/reliability.md).
      await Promise.all(reads([]));
      const order: string[] = [];
      const unpause = await pauseWrites(order);
      const paused = reads(order);
      // A bound for the wait, not a timing claim: a read that waits for the pause comes after "unpause".
      await waitFor(() => order.length === 3, "the three reads", 5_000).catch(() => undefined);
      await unpause();
      await Promise.all(paused);
      expect(order.indexOf("unpause"), JSON.stringify(order)).to.equal(3);
      expect(order.slice(0, 3).sort()).to.deep.equal(["attributes 1", "peek 1", "stats 1"]);
    });

    /** Empties the script cache of every data server (what a restart or a promoted replica starts with). */
    async function flushScripts(): Promise<void> {
      for (const url of await dataServers()) await (await serverClient(cleanup, url)).sendCommand(["SCRIPT", "FLUSH"]);
    }

    it("answers every read-only call before the pause ends, also with an empty script cache", async () => {
      await rsmq.sendMessageAsync({ qname: "q", message: "x" });
      const queue = internalsOf(rsmq);
      const reads = (order: string[]): Array<Promise<unknown>> => [
        rsmq.getQueueAttributesAsync({ qname: "q" }).then((attributes) => order.push(`attributes ${attributes.msgs}`)),
        rsmq.peekMessagesAsync({ qname: "q" }).then((peeked) => order.push(`peekMessages ${peeked.length}`)),
        rsmq.peekDeadLettersAsync({ qname: "q" }).then((peeked) => order.push(`peekDeadLetters ${peeked.length}`)),
        readQueueStats(rsmq, "q").then((stats) => order.push(`stats ${stats.msgs}`)),
        readPeek(rsmq, "q", 10).then((peeked) => order.push(`peek ${peeked.messages.length}`)),
        queue.run(() => nextDue(queue.layout, "q")).then((ms) => order.push(`nextDue ${JSON.stringify(ms)}`)),
        rsmq.listQueuesAsync().then((names) => order.push(`listQueues ${names.join()}`)),
      ];
      // Each read once, so that the connection is open and what it learns of the server is learnt.
      await Promise.all(reads([]));
      // A server that knows no script cannot tell from a SHA1 alone that a script only reads.
      await flushScripts();
      const order: string[] = [];
      const unpause = await pauseWrites(order);
      const paused = reads(order);
      // A bound for the wait, not a timing claim: a read that waits for the pause comes after "unpause".
      await waitFor(() => order.length === 7, "the seven reads", 5_000).catch(() => undefined);
      await unpause();
      await Promise.all(paused);
      expect(order.indexOf("unpause"), JSON.stringify(order)).to.equal(7);
      expect(order.slice(0, 7).sort()).to.deep.equal([
        "attributes 1",
        "listQueues q",
        "nextDue 0",
        "peek 1",
        "peekDeadLetters 1",
        "peekMessages 1",
        "stats 1",
      ]);
    });

    it("keeps an idle Worker looking for messages after SCRIPT FLUSH instead of waiting out the pause", async () => {
      const worker = cleanup.worker(new Worker(rsmq, { qname: "q", handler: () => undefined, maxIdleSleepMs: 100 }));
      const log = new WorkerLog(worker);
      worker.start();
      await waitFor(() => log.count("sleep") >= 3 && worker.counters.looks >= 1, "three idle sleeps and a look");
      await flushScripts();
      const order: string[] = [];
      const unpause = await pauseWrites(order);
      const looksBefore = worker.counters.looks;
      await waitFor(() => worker.counters.looks >= looksBefore + 3, "three more looks", 5_000).then(
        () => order.push("three looks answered"),
        () => undefined,
      );
      await unpause();
      expect(order).to.deep.equal(["three looks answered", "unpause"]);
      expect(worker.counters.errors).to.equal(0);
    });

    it("keeps an idle Worker looking for messages (one EVALSHA per cap) instead of waiting out the pause", async () => {
      const worker = cleanup.worker(new Worker(rsmq, { qname: "q", handler: () => undefined, maxIdleSleepMs: 100 }));
      const log = new WorkerLog(worker);
      worker.start();
      // Past start-up (the first receive, and the one the realtime subscription's wake causes), and
      // past the first look, so the server knows the look-up script (see the test above).
      await waitFor(() => log.count("sleep") >= 3 && worker.counters.looks >= 1, "three idle sleeps and a look");
      const order: string[] = [];
      const unpause = await pauseWrites(order);
      const sleepsBefore = log.count("sleep");
      // Each sleep after the first in the pause needs a look that was answered.
      await waitFor(() => log.count("sleep") >= sleepsBefore + 3, "three more idle sleeps", 5_000).then(
        () => order.push("three looks answered"),
        () => undefined,
      );
      await unpause();
      expect(order).to.deep.equal(["three looks answered", "unpause"]);
      expect(worker.counters.errors).to.equal(0);
    });
  });
});
