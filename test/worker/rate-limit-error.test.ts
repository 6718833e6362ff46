/**
 * A handler's RateLimitError on a real queue: the Worker blocks the queue's receives for its ms,
 * the message comes back after the block with its receive count unchanged (the bounce gave the
 * delivery back), with no `failed` or `retry` event, and never reaches the dead-letter queue, even
 * with maxDeliveries 1 and three bounces in a row. The Worker's next poll is held back by the block.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import type { QueueMessage } from "../../lib/types";
import { freshQueueEachTest, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const BLOCK_MS = 300;

describe("Worker: a handler's RateLimitError", () => {
  const queue = freshQueueEachTest();

  it("the message comes back after the block with its rc unchanged, three times over; no failed/retry event; never dead-lettered with maxDeliveries 1", async () => {
    const { rsmq, sender, cleanup } = queue;
    const deliveries: Array<{ rc: number; at: number }> = [];
    const events: string[] = [];
    const worker = cleanup.worker(
      new RedisSMQ.Worker(rsmq, {
        qname: "q",
        vt: 30,
        maxIdleSleepMs: 30_000,
        retry: { maxDeliveries: 1 },
        handler: (message: QueueMessage) => {
          if (message.message !== "call the API") return;
          deliveries.push({ rc: message.rc, at: Date.now() });
          if (deliveries.length <= 3) throw new RedisSMQ.RateLimitError(BLOCK_MS);
        },
      }),
    );
    const bounces: number[] = [];
    for (const name of ["failed", "retry", "deadLettered", "dropped", "handled"] as const) worker.on(name, () => void events.push(name));
    worker.on("rateLimited", (_message, info) => void bounces.push(info.ms));
    const blocks: string[] = [];
    worker.on("heldBack", (block) => void blocks.push(block.reason));
    const id = await sender.sendMessageAsync({ qname: "q", message: "call the API" });
    worker.start();
    await waitFor(() => deliveries.length === 1, "the first delivery");
    // A message due while the block holds: the worker's next receive is held back by it.
    await sender.sendMessageAsync({ qname: "q", message: "another" });
    await waitFor(() => events.filter((name) => name === "handled").length === 2, "both messages handled", 15_000);

    expect(deliveries.map((delivery) => delivery.rc)).to.deep.equal([1, 1, 1, 1]);
    expect(events).to.deep.equal(["handled", "handled"]);
    expect(bounces).to.have.length(3);
    for (const ms of bounces) expect(ms).to.be.within(1, BLOCK_MS);
    // Each delivery after a bounce waited for the block (the server's clock is this machine's).
    for (let i = 1; i < deliveries.length; i++) expect(deliveries[i].at - deliveries[i - 1].at).to.be.at.least(BLOCK_MS - 20);
    expect(blocks).to.include("limited");
    expect(worker.counters).to.deep.include({ rateLimited: 3, failed: 0, retried: 0, deadLettered: 0, handled: 2 });
    expect(await rsmq.peekMessageAsync({ qname: "q", id })).to.deep.equal({});
    const queues = await rsmq.listQueuesAsync();
    if (queues.includes("q-dlq")) expect((await rsmq.getQueueAttributesAsync({ qname: "q-dlq" })).msgs).to.equal(0);
  });

  it("without ms: nothing is blocked, the message is back after 1 s with its rc unchanged", async () => {
    const { rsmq, sender, cleanup } = queue;
    const deliveries: number[] = [];
    const worker = cleanup.worker(
      new RedisSMQ.Worker(rsmq, {
        qname: "q",
        maxIdleSleepMs: 30_000,
        retry: { maxDeliveries: 1 },
        handler: (message: QueueMessage) => {
          deliveries.push(message.rc);
          if (deliveries.length === 1) throw new RedisSMQ.RateLimitError();
        },
      }),
    );
    const bounces: number[] = [];
    worker.on("rateLimited", (_message, info) => void bounces.push(info.ms));
    await sender.sendMessageAsync({ qname: "q", message: "call the API" });
    worker.start();
    await waitFor(() => worker.counters.handled === 1, "the second delivery to be handled", 15_000);
    expect(deliveries).to.deep.equal([1, 1]);
    expect(bounces).to.deep.equal([1000]);
    expect(worker.counters).to.deep.include({ rateLimited: 1, failed: 0, heldBack: 0 });
  });
});
