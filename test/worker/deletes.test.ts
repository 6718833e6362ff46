/**
 * A Worker's deletes: the messages of one received batch whose handlers finish together are
 * deleted by one script call, not one deleteMessage each (counted exactly from INFO
 * commandstats): a deleteMessages of their own while the worker sleeps, the next receive when it
 * is about to receive (see acknowledgement.test.ts); each message is still deleted, and each
 * handled message counted, once.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { keysOf, plainClient } from "../support/server";
import { commandStatsDuring } from "../support/wire";
import { freshQueueEachTest, loadPollScripts, WorkerLog, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;

describe("Worker: deletes", () => {
  const fresh = freshQueueEachTest();
  const { cleanup } = fresh;

  it("deletes a batch handled together while it sleeps with one script call: one EVALSHA for 10 messages, each message gone", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i += 1) ids.push(await fresh.sender.sendMessageAsync({ qname: "q", message: `m${i}` }));
    await loadPollScripts(fresh.ns, "q");
    // Warm the delete script's cache, so no NOSCRIPT and EVAL fall into the count.
    await fresh.rsmq.deleteMessagesAsync({ qname: "q", ids: ["00000000000000000000000000000000"] });
    const handled: string[] = [];
    const worker = cleanup.worker(
      // Twenty slots: the receive of ten is short, so the worker sleeps and the deletes go on their own.
      // No wake subscription: its confirmation, heard while the first receive is out, would make a
      // second receive at once, and the deletes would ride on it.
      new Worker(fresh.rsmq, {
        qname: "q",
        concurrency: 20,
        maxIdleSleepMs: 60_000,
        realtimeWakes: false,
        handler: (message) => void handled.push(message.id),
      }),
    );
    const log = new WorkerLog(worker);
    const stats = await commandStatsDuring(async () => {
      worker.start();
      await waitFor(() => worker.counters.handled === 10 && log.asleep, "the ten messages handled and the worker asleep");
      await worker.stop();
    });

    expect([...handled].sort()).to.deep.equal([...ids].sort());
    // The polls (one receive of all ten, then empty ones or looks), and one call for the ten deletes.
    expect(stats.evalsha, JSON.stringify(stats)).to.equal(worker.counters.receives + 1);
    // Read-only: the looks, and the read of the queue's schedules at start.
    expect(stats.evalsha_ro ?? 0, JSON.stringify(stats)).to.equal(worker.counters.looks + 1);
    // One ZREM per message, and one for the batch's concurrency leases (a queue without a limit has none to free).
    expect(stats.zrem, JSON.stringify(stats)).to.equal(10 + 1);
    const client = await plainClient();
    cleanup.add(() => client.quit());
    const { messages, hash } = keysOf(fresh.ns, "q");
    expect(await client.zCard(messages)).to.equal(0);
    const fields = ids.flatMap((id) => [id, `${id}:rc`, `${id}:fr`]);
    expect(await client.hmGet(hash, fields)).to.deep.equal(fields.map(() => null));
  });
});
