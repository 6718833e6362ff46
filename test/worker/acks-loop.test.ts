/**
 * A handled message's delete riding on the Worker's next receive, without Redis (a fake queue with
 * the combined call, a fake clock): the loop sends the deletes held with its next receive; it
 * holds none while it sleeps, backs off or stops, so none waits behind a sleep; a combined call
 * that fails as a whole sends its deletes again on their own and backs off; a refused receive part
 * is a failed poll whose deletes are done; `handled` comes only once the delete has answered. And
 * PendingAcks on its own.
 */
import { expect } from "chai";
import { settle } from "../support/fake-clock";
import { batch, CombiningFakeQueue, fakeWorker, held, message } from "../support/fake-queue";
import type { LoopEvent } from "../support/fake-queue";
import { PendingAcks } from "../../lib/worker/pending-acks";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const CAP = 60_000;

/** Event names only, with the payload of sleeps (the ms). */
function outline(events: LoopEvent[]): string[] {
  return events.map(([name, ...args]) => (name === "sleep" ? `sleep ${String(args[0])}` : name));
}

describe("Worker loop: deletes ride on the next receive (fake queue, fake clock)", () => {
  it("concurrency 1: the first receive alone, then one combined call per message; the last finds the queue empty and it sleeps", async () => {
    const { queue, events, loop, start } = fakeWorker({ maxIdleSleepMs: CAP }, new CombiningFakeQueue());
    queue.receives.push(batch([message("m1")]), batch([message("m2")]), batch([message("m3")]));
    await start();
    expect(queue.calls).to.deep.equal(["receive 1", "deleteAndReceive m1 1", "deleteAndReceive m2 1", "deleteAndReceive m3 1"]);
    // Each message's `handled` comes once the call carrying its delete has answered.
    expect(outline(events)).to.deep.equal(["receive", "handled", "receive", "handled", "receive", "handled", "receive", `sleep ${CAP}`]);
    expect(loop.counters).to.deep.include({ receives: 4, handled: 3, errors: 0 });
  });

  it("concurrency 3: the deletes of a batch go together with the next receive", async () => {
    const { queue, start } = fakeWorker({ concurrency: 3, maxIdleSleepMs: CAP }, new CombiningFakeQueue());
    queue.receives.push(batch([message("m1"), message("m2"), message("m3")]), batch([message("m4")], null));
    await start();
    expect(queue.calls).to.deep.equal(["receive 3", "deleteAndReceive m1,m2,m3 3", "remove m4"]);
  });

  it("a handler that ends while the worker sleeps is not held for a receive: its delete goes out at once", async () => {
    const gate = held<void>();
    const { queue, events, start } = fakeWorker(
      { concurrency: 2, maxIdleSleepMs: CAP, handler: () => gate.promise },
      new CombiningFakeQueue(),
    );
    queue.receives.push(batch([message("m1")], null));
    await start();
    expect(queue.calls).to.deep.equal(["receive 2"]);
    expect(outline(events)).to.deep.equal(["receive", `sleep ${CAP}`]);
    gate.resolve();
    await settle();
    expect(queue.calls).to.deep.equal(["receive 2", "remove m1"]);
    expect(outline(events)).to.deep.equal(["receive", `sleep ${CAP}`, "handled"]);
  });

  it("a combined call that fails as a whole: its deletes go again on their own, the poll is a failure (reported, backed off)", async () => {
    const { queue, clock, events, loop, start } = fakeWorker({ maxIdleSleepMs: CAP }, new CombiningFakeQueue());
    queue.receives.push(batch([message("m1")]));
    queue.combined.push(new Error("connection lost"));
    await start();
    expect(queue.calls).to.deep.equal(["receive 1", "deleteAndReceive m1 1", "remove m1"]);
    expect(outline(events)).to.deep.equal(["receive", "handled", "error", "sleep 100"]);
    expect(loop.counters).to.deep.include({ handled: 1, errors: 1 });
    await clock.advance(100);
    expect(queue.calls.slice(3)).to.deep.equal(["receive 1"]);
  });

  it("a refused receive part: the deletes are done (handled), the poll is a failure (reported, backed off), nothing sent again", async () => {
    const { queue, clock, events, loop, start } = fakeWorker({ maxIdleSleepMs: CAP }, new CombiningFakeQueue());
    queue.receives.push(batch([message("m1")]));
    queue.combined.push({ receiveError: new Error("NOPERM") });
    await start();
    expect(queue.calls).to.deep.equal(["receive 1", "deleteAndReceive m1 1"]);
    expect(outline(events)).to.deep.equal(["receive", "handled", "error", "sleep 100"]);
    expect((events.find(([name]) => name === "error")?.[1] as Error).message).to.equal("NOPERM");
    expect(loop.counters).to.deep.include({ handled: 1, errors: 1, receives: 1 });
    await clock.advance(100);
    expect(queue.calls.slice(2)).to.deep.equal(["receive 1"]);
  });

  it("a delete that found its message gone (or received again elsewhere) settles it as `cancelled`, as a delete alone does: not handled, no error", async () => {
    const { queue, loop, events, start } = fakeWorker({ maxIdleSleepMs: CAP }, new CombiningFakeQueue());
    queue.receives.push(batch([message("m1")]));
    queue.combined.push({ deleted: [0] });
    await start();
    expect(queue.calls).to.deep.equal(["receive 1", "deleteAndReceive m1 1"]);
    expect(outline(events)).to.deep.equal(["receive", "cancelled", "receive", `sleep ${CAP}`]);
    expect(loop.counters).to.deep.include({ handled: 0, cancelled: 1, errors: 0 });
  });

  it("stop while a combined call is out: stop waits for its deletes' answer", async () => {
    const { queue, events, loop, start } = fakeWorker({ maxIdleSleepMs: CAP }, new CombiningFakeQueue());
    const reply = held<ReturnType<CombiningFakeQueue["deleteAndReceive"]> extends Promise<infer R> ? Partial<R> : never>();
    queue.receives.push(batch([message("m1")]));
    queue.combined.push(reply.promise);
    await start();
    expect(queue.calls).to.deep.equal(["receive 1", "deleteAndReceive m1 1"]);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await settle();
    expect(stopped).to.equal(false);
    reply.resolve({ deleted: [1], batch: batch([]) });
    await stopping;
    expect(outline(events)).to.deep.equal(["receive", "handled", "stopped"]);
  });

  it("without the combined call (a queue that lacks it, or telemetry observing): each delete on its own, the slot held until it answered", async () => {
    const queue = Object.assign(new CombiningFakeQueue(), { combinesDeletes: false });
    const { events, start } = fakeWorker({ maxIdleSleepMs: CAP }, queue);
    queue.receives.push(batch([message("m1")]), batch([message("m2")]));
    await start();
    expect(queue.calls).to.deep.equal(["receive 1", "remove m1", "receive 1", "remove m2", "receive 1"]);
    expect(outline(events)).to.deep.equal(["receive", "handled", "receive", "handled", "receive", `sleep ${CAP}`]);
  });
});

describe("PendingAcks", () => {
  it("sends a delete at once unless holding; holds, hands over what it held, and sends it alone on release", async () => {
    const alone: string[] = [];
    const acks = new PendingAcks((id) => {
      alone.push(id);
      return Promise.resolve(1);
    });
    expect(await acks.add("a", 1)).to.equal(1);
    expect(alone).to.deep.equal(["a"]);
    acks.hold();
    expect(acks.holding).to.equal(true);
    const b = acks.add("b", 1);
    const c = acks.add("c", 1);
    const taken = acks.take();
    expect(taken.map((ack) => ack.id)).to.deep.equal(["b", "c"]);
    taken[0].resolve(1);
    taken[1].resolve(0);
    expect([await b, await c]).to.deep.equal([1, 0]);
    const d = acks.add("d", 1);
    expect(alone).to.deep.equal(["a"]);
    acks.release();
    expect(alone).to.deep.equal(["a", "d"]);
    expect(await d).to.equal(1);
    expect(acks.take()).to.deep.equal([]);
  });
});
