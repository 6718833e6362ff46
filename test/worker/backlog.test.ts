/**
 * Backlogs: N messages with concurrency C are all handled exactly once, never more than C
 * handlers at once, batches never larger than the free slots, and no sleep while messages are due.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { freshQueueEachTest, WorkerLog, delay, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;

describe("Worker: backlog", () => {
  const fresh = freshQueueEachTest();
  const { cleanup } = fresh;

  async function sendMany(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let start = 0; start < count; start += 50) {
      const chunk = Array.from({ length: Math.min(50, count - start) }, (_, i) => `m${start + i}`);
      ids.push(...(await Promise.all(chunk.map((message) => fresh.sender.sendMessageAsync({ qname: "q", message })))));
    }
    return ids;
  }

  /** Runs a worker over `ids` already queued; returns what it saw. */
  async function drain(ids: string[], options: { concurrency: number; batchSize?: number }) {
    const calls = new Map<string, number>();
    let active = 0;
    let maxActive = 0;
    const worker = cleanup.worker(
      new Worker(fresh.rsmq, {
        qname: "q",
        ...options,
        maxIdleSleepMs: 60_000,
        handler: async (message) => {
          active += 1;
          maxActive = Math.max(maxActive, active);
          calls.set(message.id, (calls.get(message.id) ?? 0) + 1);
          // Uneven handler times, so slots free up one by one.
          await delay(Math.floor(Math.random() * 4));
          active -= 1;
        },
      }),
    );
    const log = new WorkerLog(worker);
    worker.start();
    await waitFor(() => worker.counters.handled === ids.length, `${ids.length} handled`, 15_000);
    await worker.stop();
    return { calls, maxActive, log, worker };
  }

  function expectDrained(ids: string[], { calls, log, worker }: Awaited<ReturnType<typeof drain>>, limit: number): void {
    // Each exactly once.
    expect([...calls.keys()].sort()).to.deep.equal([...ids].sort());
    expect([...calls.values()].every((n) => n === 1)).to.equal(true);
    expect(worker.counters).to.deep.include({ handled: ids.length, failed: 0, errors: 0 });
    // No batch larger than the limit.
    const batches = log.named("receive").map((event) => event.args[0] as number);
    expect(Math.max(...batches)).to.be.at.most(limit);
    // No sleep before the last receive that still brought messages.
    const lastBusy = log.events.map((event) => event.name === "receive" && (event.args[0] as number) > 0).lastIndexOf(true);
    const firstSleep = log.events.findIndex((event) => event.name === "sleep");
    expect(firstSleep === -1 || firstSleep > lastBusy, `sleep at event ${firstSleep}, last busy receive at ${lastBusy}`).to.equal(true);
  }

  it("handles 200 messages with concurrency 5 exactly once, at most 5 at a time, without sleeping", async () => {
    const ids = await sendMany(200);
    const result = await drain(ids, { concurrency: 5 });
    expectDrained(ids, result, 5);
    expect(result.maxActive).to.equal(5);
    const attributes = await fresh.rsmq.getQueueAttributesAsync({ qname: "q" });
    expect(attributes).to.deep.include({ msgs: 0, totalrecv: 200 });
  });

  it("never takes more than the free slots, even with a batchSize above concurrency", async () => {
    const ids = await sendMany(100);
    const result = await drain(ids, { concurrency: 3, batchSize: 50 });
    expectDrained(ids, result, 3);
    expect(result.maxActive).to.be.at.most(3);
    expect((await fresh.rsmq.getQueueAttributesAsync({ qname: "q" })).totalrecv).to.equal(100);
  });

  it("drains in batches: concurrency 50 with batchSize 25 takes full batches of 25", async () => {
    const ids = await sendMany(200);
    const result = await drain(ids, { concurrency: 50, batchSize: 25 });
    expectDrained(ids, result, 25);
    expect(result.maxActive).to.be.at.most(50);
    const batches = result.log.named("receive").map((event) => event.args[0] as number);
    expect(batches.slice(0, 2)).to.deep.equal([25, 25]);
  });

  it("handles a backlog that arrives while it runs, exactly once", async () => {
    const calls = new Map<string, number>();
    const worker = cleanup.worker(
      new Worker(fresh.rsmq, {
        qname: "q",
        concurrency: 4,
        maxIdleSleepMs: 60_000,
        handler: async (message) => {
          calls.set(message.id, (calls.get(message.id) ?? 0) + 1);
          await delay(1);
        },
      }),
    );
    worker.start();
    const ids = await sendMany(150);
    await waitFor(() => worker.counters.handled === 150, "150 handled", 15_000);
    expect([...calls.keys()].sort()).to.deep.equal([...ids].sort());
    expect([...calls.values()].every((n) => n === 1)).to.equal(true);
  });
});
