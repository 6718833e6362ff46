/**
 * Counters and events: every counter moves exactly with its event, and the event payloads say
 * what the documentation says (receive: count and next due; handled/failed: the message; sleep:
 * ms; wake: reason; stopped once).
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { freshQueueEachTest, WorkerLog, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;
type QueueMessage = RedisSMQ.QueueMessage;

describe("Worker: counters and events", () => {
  const fresh = freshQueueEachTest();
  const { cleanup } = fresh;

  it("each counter matches its events through receives, a failure, a retry, sleeps and wakes", async () => {
    const worker = cleanup.worker(
      new Worker(fresh.rsmq, {
        qname: "q",
        concurrency: 2,
        vt: 1,
        maxIdleSleepMs: 300,
        realtimeWakes: false,
        handler: (message) => {
          if (message.message === "fail" && message.rc === 1) throw new Error("boom");
        },
      }),
    );
    const log = new WorkerLog(worker);
    const started = Date.now();
    worker.start();
    await waitFor(() => log.asleep, "the worker asleep");
    // The first receive on an empty queue: nothing, and null for "empty".
    expect(log.named("receive")[0].args).to.deep.equal([0, null]);
    expect(log.sleeps()[0]).to.equal(300);

    const [okId, failId] = await Promise.all([
      fresh.sender.sendMessageAsync({ qname: "q", message: "ok" }),
      fresh.sender.sendMessageAsync({ qname: "q", message: "fail" }),
    ]);
    await waitFor(() => worker.counters.handled === 2, "both handled", 10_000);
    await worker.stop();
    const elapsed = Date.now() - started;
    const counters = worker.counters;

    const receives = log.named("receive").map((event) => event.args as [number, number | null | undefined]);
    expect(counters.receives).to.equal(receives.length);
    expect(counters.emptyReceives).to.equal(receives.filter(([count]) => count === 0).length);
    expect(receives.reduce((sum, [count]) => sum + count, 0)).to.equal(3); // ok, fail, fail again
    // nextDueMs: a number (in flight or delayed) or null (empty) when fewer came back than asked.
    for (const [count, nextDueMs] of receives) {
      if (count === 0) expect(nextDueMs === null || (typeof nextDueMs === "number" && nextDueMs >= 0)).to.equal(true);
    }
    // While "fail" was hidden after its failure, an empty receive (or a look, after a sleep that
    // nothing cut short) reported when it is due.
    const looks = log.named("look").map((event) => event.args[0] as number | null);
    expect(counters.looks).to.equal(looks.length);
    const toldDue = [...receives.filter(([count]) => count === 0).map(([, nextDueMs]) => nextDueMs), ...looks];
    expect(toldDue.some((nextDueMs) => typeof nextDueMs === "number" && nextDueMs > 0 && nextDueMs <= 1000)).to.equal(true);

    expect(counters.handled).to.equal(log.count("handled"));
    expect(
      log
        .named("handled")
        .map((event) => (event.args[0] as QueueMessage).id)
        .sort(),
    ).to.deep.equal([okId, failId].sort());
    expect(counters.failed).to.equal(1);
    const [failedMessage, failure] = log.named("failed")[0].args as [QueueMessage, Error];
    expect(failedMessage).to.include({ id: failId, message: "fail", rc: 1 });
    expect(failure.message).to.equal("boom");

    expect(counters.sleeps).to.equal(log.count("sleep"));
    expect(counters.sleptMs).to.be.above(0).and.at.most(elapsed);
    expect(log.named("wake").map((event) => event.args[0])).to.include("woken");
    expect(log.named("wake").every((event) => event.args[0] === "woken" || event.args[0] === "aborted")).to.equal(true);
    expect(counters.errors).to.equal(0);
    expect(counters.extensions).to.equal(0);
    expect(log.count("stopped")).to.equal(1);
  });

  it("a full batch reports no next due time (undefined: not looked up)", async () => {
    await Promise.all(["a", "b", "c"].map((message) => fresh.sender.sendMessageAsync({ qname: "q", message })));
    const worker = cleanup.worker(
      new Worker(fresh.rsmq, { qname: "q", concurrency: 3, maxIdleSleepMs: 60_000, realtimeWakes: false, handler: () => undefined }),
    );
    const log = new WorkerLog(worker);
    worker.start();
    await waitFor(() => worker.counters.handled === 3, "three handled");
    expect(log.named("receive")[0].args).to.deep.equal([3, undefined]);
  });

  it("counters is a snapshot: changing it changes nothing", async () => {
    const worker = cleanup.worker(
      new Worker(fresh.rsmq, { qname: "q", maxIdleSleepMs: 60_000, realtimeWakes: false, handler: () => undefined }),
    );
    const log = new WorkerLog(worker);
    worker.start();
    await waitFor(() => log.asleep, "the worker asleep");
    const copy = worker.counters as { receives: number };
    copy.receives = 1000;
    expect(worker.counters.receives).to.equal(1);
  });
});
