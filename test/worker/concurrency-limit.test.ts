/**
 * The Worker at its queue's concurrency limit, without Redis: a fake queue replies with the
 * `maxed` block the receive scripts send, a fake clock moves only when the test says. It sleeps
 * until the first lease ends (retryMs, at most the cap), ignores send wakes, and receives at once
 * on a `~free:` wake (a slot freed by any client) or when one of its own handlers ends: that
 * handler's delete then rides on the receive that takes the slot it freed. A batch the limit cut
 * short is handled before it sleeps.
 */
import { expect } from "chai";
import { heldBackSleep } from "../../lib/worker/held-back";
import type { ReceiveBlock } from "../../lib/operations/receive-block";
import type { ReceivedBatch } from "../../lib/operations/receive-message";
import { settle } from "../support/fake-clock";
import { batch, blockedBatch, CombiningFakeQueue, fakeWorker, held, message } from "../support/fake-queue";
import type { LoopEvent } from "../support/fake-queue";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const CAP = 60_000;
const FREE = "~free:1700000000123";

/** The block a receive at the limit reports: `retryMs` until the first lease ends by itself. */
function maxed(retryMs: number): ReceiveBlock {
  return { reason: "maxed", retryMs };
}

/** Event names, with the ms of sleeps and the reason of wakes and blocks. */
function outline(events: LoopEvent[]): string[] {
  return events.map(([name, ...args]) => {
    if (name === "sleep" || name === "wake") return `${name} ${String(args[0])}`;
    if (name === "heldBack") return `heldBack ${(args[0] as { reason: string }).reason}`;
    return name;
  });
}

describe("Worker at the queue's concurrency limit (fake queue, fake clock)", () => {
  it("sleeps until the first lease ends, at most the cap, never below 1 ms; no jitter", () => {
    expect(heldBackSleep(maxed(1500), CAP, () => 0.999)).to.equal(1500);
    expect(heldBackSleep(maxed(3_600_000), CAP, () => 0.5)).to.equal(CAP);
    expect(heldBackSleep(maxed(0), CAP, () => 0.5)).to.equal(1);
  });

  it("at the limit: sleeps retryMs, then receives (no look: it would only say due)", async () => {
    const { queue, clock, events, loop, start } = fakeWorker({ maxIdleSleepMs: CAP });
    queue.receives.push(blockedBatch(maxed(1500)), batch([message("m1")]));
    await start();
    expect(outline(events)).to.deep.equal(["receive", "heldBack maxed", "sleep 1500"]);
    await clock.advance(1499);
    expect(queue.calls).to.deep.equal(["receive 1"]);
    await clock.advance(1);
    expect(queue.calls).to.deep.equal(["receive 1", "receive 1", "remove m1", "receive 1"]);
    expect(loop.counters).to.deep.include({ heldBack: 1, handled: 1, looks: 0 });
  });

  it("a far first lease end: one receive per cap, never a look", async () => {
    const { queue, clock, start } = fakeWorker({ maxIdleSleepMs: CAP });
    for (let i = 0; i < 4; i++) queue.receives.push(blockedBatch(maxed(3_600_000)));
    await start();
    await clock.advance(3 * CAP);
    expect(queue.calls).to.deep.equal(Array(4).fill("receive 1"));
  });

  it("ignores send wakes; a `~free:` wake makes it receive at once, and its second copy is dropped", async () => {
    const { queue, events, start } = fakeWorker({ maxIdleSleepMs: CAP, realtimeWakes: true });
    queue.receives.push(blockedBatch(maxed(20_000)), blockedBatch(maxed(20_000)));
    await start();
    queue.wake("a".repeat(32));
    queue.publish("3");
    await settle();
    expect(queue.calls.filter((call) => call === "receive 1")).to.have.length(1);
    queue.publish(FREE);
    await settle();
    queue.wake(FREE);
    await settle();
    expect(queue.calls.filter((call) => call === "receive 1")).to.have.length(2);
    expect(outline(events).slice(-5)).to.deep.equal(["sleep 20000", "wake woken", "receive", "heldBack maxed", "sleep 20000"]);
  });

  it("one of its own handlers ending wakes it: that delete rides on the receive that takes the freed slot", async () => {
    const queue = new CombiningFakeQueue();
    const gate = held<void>();
    const { events, loop, start } = fakeWorker({ maxIdleSleepMs: CAP, concurrency: 2, handler: () => gate.promise }, queue);
    // A batch cut short by the limit: one message taken, then held at the limit.
    queue.receives.push(blockedBatch(maxed(20_000), [message("m1")]), batch([message("m2")]));
    await start();
    expect(queue.calls).to.deep.equal(["receive 2"]);
    expect(outline(events)).to.deep.equal(["receive", "heldBack maxed", "sleep 20000"]);
    gate.resolve();
    await settle();
    // m2's handler resolves at once too (the same gate): its delete rides on the next receive.
    expect(queue.calls.slice(0, 2)).to.deep.equal(["receive 2", "deleteAndReceive m1 2"]);
    expect(outline(events).slice(3, 6)).to.deep.equal(["wake woken", "handled", "receive"]);
    expect(loop.counters).to.deep.include({ heldBack: 1, handled: 2, errors: 0 });
  });

  it("a handler of its own that ended while the poll was out: receives again at once", async () => {
    const queue = new CombiningFakeQueue();
    const reply = held<ReceivedBatch>();
    const gate = held<void>();
    const { start } = fakeWorker({ maxIdleSleepMs: CAP, concurrency: 2, batchSize: 1, handler: () => gate.promise }, queue);
    queue.receives.push(batch([message("m1")]), reply.promise);
    await start();
    expect(queue.calls).to.deep.equal(["receive 1", "receive 1"]);
    gate.resolve();
    await settle();
    reply.resolve(blockedBatch(maxed(20_000)));
    await settle();
    expect(queue.calls).to.deep.equal(["receive 1", "receive 1", "deleteAndReceive m1 1"]);
  });

  it("held at the limit while its handlers run, their deletes wait for no timer (not combining: each goes alone, and wakes it)", async () => {
    const gate = held<void>();
    const { queue, clock, start } = fakeWorker({ maxIdleSleepMs: CAP, concurrency: 2, handler: () => gate.promise });
    queue.receives.push(blockedBatch(maxed(20_000), [message("m1")]));
    await start();
    gate.resolve();
    await settle();
    expect(queue.calls).to.deep.equal(["receive 2", "remove m1", "receive 2"]);
    expect(clock.now() - 1_700_000_000_000).to.equal(0);
  });
});
