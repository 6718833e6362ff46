/**
 * The Worker's loop without Redis: a fake queue answers each call from a script and records it, a
 * fake clock moves only when the test advances it. So each test says exactly which calls and
 * sleeps happen, in which order, and runs in milliseconds: an empty receive is followed by one
 * sleep of the cap and then a look; a wake cuts a sleep short; a reply's due time, or a retry
 * this worker scheduled, shortens it; failures are hidden for the retry delay, dead-lettered or
 * deleted; failed calls back off on the fixed ladder, and a wake ends a back-off no sooner than
 * 100 ms after the failure; stop() ends a sleep, abandons a call in flight and waits for handlers
 * at most stopTimeoutMs.
 */
import { expect } from "chai";
import { getEventListeners } from "events";
import { PoisonError } from "../../lib/retry/poison-error";
import type { ReceivedBatch } from "../../lib/operations/receive-message";
import { settle } from "../support/fake-clock";
import { batch, fakeWorker, held, message } from "../support/fake-queue";
import type { LoopEvent } from "../support/fake-queue";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const CAP = 60_000;

/** The events named `name`, payloads only. */
function named(events: LoopEvent[], name: string): unknown[][] {
  return events.filter(([event]) => event === name).map(([, ...args]) => args);
}

/** Event names only, with the payload of sleeps (the ms) and wakes (the reason). */
function outline(events: LoopEvent[]): string[] {
  return events.map(([name, ...args]) => (name === "sleep" || name === "wake" ? `${name} ${String(args[0])}` : name));
}

describe("Worker loop (fake queue, fake clock)", () => {
  describe("idle", () => {
    it("an empty receive is followed by exactly one sleep of the cap; a sleep nothing cut short by a look", async () => {
      const { queue, clock, events, loop, start } = fakeWorker({ maxIdleSleepMs: 1000 });
      await start();
      expect(queue.calls).to.deep.equal(["receive 1"]);
      expect(events).to.deep.equal([
        ["receive", 0, null],
        ["sleep", 1000],
      ]);
      expect(clock.pending.map((sleep) => sleep.ms)).to.deep.equal([1000]);

      await clock.advance(999);
      expect(queue.calls).to.deep.equal(["receive 1"]);
      await clock.advance(1);
      expect(queue.calls).to.deep.equal(["receive 1", "nextDue"]);
      expect(events.slice(2)).to.deep.equal([
        ["look", null, false],
        ["sleep", 1000],
      ]);
      // Every poll after a full sleep at the cap is one look and one more sleep of the cap.
      await clock.advance(3000);
      expect(queue.calls).to.deep.equal(["receive 1", "nextDue", "nextDue", "nextDue", "nextDue"]);
      expect(outline(events)).to.deep.equal(["receive", "sleep 1000", ...Array(4).fill(["look", "sleep 1000"]).flat()]);
      expect(loop.counters).to.deep.include({ receives: 1, emptyReceives: 1, looks: 4, sleeps: 5, sleptMs: 4000, errors: 0 });
    });

    it("a look that finds a message due receives at once", async () => {
      const { queue, clock, start } = fakeWorker({ maxIdleSleepMs: 1000 });
      queue.looks.push(0);
      queue.receives.push(batch([]), batch([message("m1")]));
      await start();
      await clock.advance(1000);
      expect(queue.calls).to.deep.equal(["receive 1", "nextDue", "receive 1", "remove m1", "receive 1"]);
    });

    it("sleeps until the due time the reply carried, then receives (no look); held to the floor and the cap", async () => {
      const { queue, clock, events, start } = fakeWorker({ maxIdleSleepMs: 1000, minIdleSleepMs: 100 });
      queue.receives.push(batch([], 250), batch([], 3), batch([], 3_600_000));
      await start();
      expect(named(events, "sleep")).to.deep.equal([[250]]);
      await clock.advance(250);
      // Raised to the floor.
      expect(named(events, "sleep")).to.deep.equal([[250], [100]]);
      await clock.advance(100);
      // An hour away: held to the cap, and after it the poll is a look.
      expect(named(events, "sleep")).to.deep.equal([[250], [100], [1000]]);
      await clock.advance(1000);
      expect(queue.calls).to.deep.equal(["receive 1", "receive 1", "receive 1", "nextDue"]);
    });

    it("a full batch is followed by another receive at once, without a sleep", async () => {
      const { queue, events, start } = fakeWorker({ maxIdleSleepMs: 1000 });
      queue.receives.push(batch([message("m1")], undefined), batch([message("m2")], undefined));
      await start();
      expect(queue.calls).to.deep.equal(["receive 1", "remove m1", "receive 1", "remove m2", "receive 1"]);
      expect(outline(events)).to.deep.equal(["receive", "handled", "receive", "handled", "receive", "sleep 1000"]);
    });

    it("takes at most the free handler slots, and batchSize", async () => {
      const release = held<void>();
      const { queue, start } = fakeWorker({ concurrency: 5, batchSize: 3, handler: () => release.promise });
      queue.receives.push(batch([message("a"), message("b"), message("c")], undefined), batch([message("d")], null));
      await start();
      // 3 (batchSize), then 2 (the free slots), then asleep.
      expect(queue.calls).to.deep.equal(["receive 3", "receive 2"]);
      release.resolve();
      await settle();
      expect(queue.calls.slice(2).sort()).to.deep.equal(["remove a", "remove b", "remove c", "remove d"]);
    });

    it("a second start() does not start a second loop", async () => {
      const { queue, events, loop, start } = fakeWorker({ maxIdleSleepMs: 1000 });
      loop.start();
      await start();
      expect(queue.calls).to.deep.equal(["receive 1"]);
      expect(outline(events)).to.deep.equal(["receive", "sleep 1000"]);
    });
  });

  describe("wakes", () => {
    it("a wake cuts the sleep short: it receives at once, not a look", async () => {
      const { queue, clock, events, loop, start } = fakeWorker({ maxIdleSleepMs: CAP });
      await start();
      queue.wake();
      await settle();
      expect(queue.calls).to.deep.equal(["receive 1", "receive 1"]);
      expect(outline(events)).to.deep.equal(["receive", `sleep ${CAP}`, "wake woken", "receive", `sleep ${CAP}`]);
      expect(loop.counters.sleptMs).to.equal(0);
      expect(clock.pending).to.have.length(1);
    });

    it("wakes while receiving make it receive once more, without a sleep in between", async () => {
      const reply = held<ReceivedBatch>();
      const { queue, events, start } = fakeWorker({ maxIdleSleepMs: CAP });
      queue.receives.push(reply.promise);
      await start();
      queue.wake();
      queue.wake();
      queue.wake();
      reply.resolve(batch([]));
      await settle();
      expect(queue.calls).to.deep.equal(["receive 1", "receive 1"]);
      expect(outline(events)).to.deep.equal(["receive", "receive", `sleep ${CAP}`]);
    });

    it("a refused realtime subscription: reported once, tried again after 1 s and 2 s; once it holds, it wakes the worker", async () => {
      const { queue, clock, events, loop, start } = fakeWorker({ maxIdleSleepMs: CAP, realtimeWakes: true });
      queue.subscriptions.push(new Error("NOPERM this user has no permissions to access the channel"), new Error("still refused"));
      await start();
      expect(queue.calls).to.deep.equal(["subscribeRealtime", "receive 1"]);
      await clock.advance(999);
      expect(queue.calls.filter((call) => call === "subscribeRealtime")).to.have.length(1);
      await clock.advance(1);
      expect(queue.calls.filter((call) => call === "subscribeRealtime")).to.have.length(2);
      await clock.advance(2000);
      expect(queue.calls.filter((call) => call === "subscribeRealtime")).to.have.length(3);
      expect(queue.listeners.realtime).to.equal(1);
      const errors = named(events, "error").map(([error]) => (error as Error).message);
      expect(errors).to.have.length(1);
      expect(errors[0]).to.include("rsmq:rt:q").and.include("NOPERM");
      expect(loop.counters.errors).to.equal(1);
      // Subscribed: it wakes once to receive what may have been sent meanwhile, then on each publish.
      expect(queue.calls.slice(-1)).to.deep.equal(["receive 1"]);
      queue.publish();
      await settle();
      expect(queue.calls.filter((call) => call === "receive 1")).to.have.length(3);
      expect(named(events, "wake")).to.deep.equal([["woken"], ["woken"]]);
    });
  });

  describe("failures", () => {
    it("a handler failure hides the message for the retry delay, and the sleep ends when it is due again", async () => {
      const { queue, clock, events, loop, start } = fakeWorker({
        concurrency: 2,
        maxIdleSleepMs: CAP,
        retry: { initialDelayMs: 400, jitter: "none" },
        handler: (received) => {
          if (received.rc === 1) throw new Error("boom");
        },
      });
      queue.receives.push(batch([message("m1")], null));
      await start();
      expect(queue.calls).to.deep.equal(["receive 2", "hide m1 400"]);
      expect(outline(events)).to.deep.equal(["receive", "failed", `sleep ${CAP}`, "retry"]);
      expect(named(events, "retry")[0][1]).to.deep.include({ delayMs: 400 });
      // The reply said "empty" (null), but the worker knows when the message it let go is due.
      await clock.advance(399);
      expect(queue.calls).to.have.length(2);
      await clock.advance(1);
      expect(queue.calls).to.deep.equal(["receive 2", "hide m1 400", "receive 2"]);
      // Timed out at the retry's due time: not a wake, and the poll is a receive, not a look.
      expect(named(events, "wake")).to.deep.equal([]);
      expect(loop.counters).to.deep.include({ failed: 1, retried: 1, sleptMs: 400 });
    });

    it("a retry's due time, once passed, is forgotten: the next sleep is the reply's", async () => {
      const { queue, clock, events, start } = fakeWorker({
        concurrency: 2,
        maxIdleSleepMs: CAP,
        retry: { initialDelayMs: 400, jitter: "none" },
        handler: (received) => {
          if (received.rc === 1) throw new Error("boom");
        },
      });
      queue.receives.push(batch([message("m1")], null), batch([message("m1", 2)], null));
      await start();
      await clock.advance(400);
      expect(outline(events)).to.deep.equal(["receive", "failed", `sleep ${CAP}`, "retry", "receive", `sleep ${CAP}`, "handled"]);
    });

    it("a poison error moves the message to the dead-letter queue with why, and it stops", async () => {
      const { queue, events, loop, start } = fakeWorker({
        handler: () => {
          throw new PoisonError("cannot parse");
        },
      });
      queue.receives.push(batch([message("m1")], undefined));
      await start();
      expect(queue.calls).to.deep.equal(["receive 1", "moveToDlq m1", "receive 1"]);
      const why = { source: "q", deliveries: 1, reason: "poison", error: "cannot parse" };
      expect(queue.deadLettered.map((moved) => moved.why)).to.deep.equal([why]);
      const [received, error] = named(events, "failed")[0];
      expect(named(events, "deadLettered")).to.deep.equal([[received, { reason: "poison", error }]]);
      expect(named(events, "dropped")).to.deep.equal([]);
      // The deprecated `stop` repeats it, right after, naming what happened.
      const course = outline(events);
      expect(course.slice(course.indexOf("failed"), course.indexOf("failed") + 3)).to.deep.equal(["failed", "deadLettered", "stop"]);
      expect(named(events, "stop")).to.deep.equal([[received, { reason: "poison", error, action: "deadLettered" }]]);
      expect(loop.counters).to.deep.include({ failed: 1, deadLettered: 1, retried: 0 });
    });

    it("a message out of deliveries stops as exhausted", async () => {
      const { queue, events, start } = fakeWorker({
        retry: { maxDeliveries: 3 },
        handler: () => {
          throw new Error("again");
        },
      });
      queue.receives.push(batch([message("m1", 3)], undefined));
      await start();
      expect(queue.deadLettered.map(({ why }) => why)).to.deep.equal([{ source: "q", deliveries: 3, reason: "exhausted", error: "again" }]);
      expect((named(events, "deadLettered")[0][1] as { reason: string }).reason).to.equal("exhausted");
    });

    it('onStop "delete" deletes a stopped message', async () => {
      const { queue, events, loop, start } = fakeWorker({
        onStop: "delete",
        handler: () => {
          throw new PoisonError("no");
        },
      });
      queue.receives.push(batch([message("m1")], undefined));
      await start();
      expect(queue.calls).to.deep.equal(["receive 1", "remove m1", "receive 1"]);
      const [received, error] = named(events, "failed")[0];
      expect(named(events, "dropped")).to.deep.equal([[received, { reason: "poison", error }]]);
      expect(named(events, "deadLettered")).to.deep.equal([]);
      const course = outline(events);
      expect(course.slice(course.indexOf("failed"), course.indexOf("failed") + 3)).to.deep.equal(["failed", "dropped", "stop"]);
      expect(named(events, "stop")).to.deep.equal([[received, { reason: "poison", error, action: "deleted" }]]);
      expect(loop.counters).to.deep.include({ dropped: 1, deadLettered: 0 });
    });

    it("a message gone from the queue is neither retried nor stopped: no event, no counter", async () => {
      const { queue, events, loop, start } = fakeWorker({
        retry: { initialDelayMs: 400, jitter: "none" },
        handler: (received) => {
          throw received.id === "m1" ? new Error("retry me") : new PoisonError("stop me");
        },
      });
      queue.receives.push(batch([message("m1")], undefined), batch([message("m2")], undefined));
      queue.hides.push(0);
      queue.moves.push(false);
      await start();
      expect(queue.calls).to.deep.equal(["receive 1", "hide m1 400", "receive 1", "moveToDlq m2", "receive 1"]);
      expect(named(events, "retry")).to.deep.equal([]);
      expect([...named(events, "deadLettered"), ...named(events, "dropped"), ...named(events, "stop")]).to.deep.equal([]);
      expect(loop.counters).to.deep.include({ failed: 2, retried: 0, deadLettered: 0, dropped: 0 });
    });

    it("a Redis error while retrying is reported, and the worker wakes when the message's vt ends", async () => {
      const { queue, clock, events, start } = fakeWorker({
        concurrency: 2,
        maxIdleSleepMs: CAP,
        handler: () => {
          throw new Error("boom");
        },
      });
      queue.receives.push(batch([message("m1")], null, 30));
      queue.hides.push(new Error("connection lost"));
      await start();
      expect(named(events, "error").map(([error]) => (error as Error).message)).to.deep.equal(["connection lost"]);
      await clock.advance(29_999);
      expect(queue.calls.filter((call) => call.startsWith("receive"))).to.have.length(1);
      await clock.advance(1);
      expect(queue.calls.filter((call) => call.startsWith("receive"))).to.have.length(2);
    });

    it("failed receives and looks back off 100, 200, 400, 800 ms whatever the cap, and a success resets the ladder", async () => {
      const { queue, clock, events, loop, start } = fakeWorker({ maxIdleSleepMs: 50 });
      const down = (): Error => Object.assign(new Error("queue not found"), { name: "queueNotFound" });
      queue.receives.push(down(), down(), down(), down(), batch([]));
      queue.looks.push(down());
      await start();
      await clock.advance(100 + 200 + 400 + 800 + 50 + 100);
      expect(named(events, "sleep").map(([ms]) => ms)).to.deep.equal([100, 200, 400, 800, 50, 100, 50]);
      // The failed look is followed by a receive: after a failure nothing says the queue is idle.
      expect(queue.calls).to.deep.equal([...Array(5).fill("receive 1"), "nextDue", "receive 1"]);
      expect(loop.counters).to.deep.include({ errors: 5, receives: 2, looks: 0 });
    });

    it("a throwing listener is reported as `error` and the loop goes on", async () => {
      const { queue, clock, emitter, events, start } = fakeWorker({ maxIdleSleepMs: 1000 });
      emitter.on("receive", () => {
        throw new Error("listener bug");
      });
      await start();
      await clock.advance(1000);
      expect(outline(events)).to.deep.equal(["receive", "error", "sleep 1000", "look", "sleep 1000"]);
      expect(queue.calls).to.deep.equal(["receive 1", "nextDue"]);
    });
  });

  describe("wakes during an error back-off", () => {
    const notFound = (): Error => Object.assign(new Error("queue not found"), { name: "queueNotFound" });

    /** A worker whose first `failures` receives fail, resolved once it has begun the last back-off of that run. */
    async function backingOff(failures: number, options: Parameters<typeof fakeWorker>[0] = {}) {
      const worker = fakeWorker({ maxIdleSleepMs: CAP, ...options });
      for (let i = 0; i < failures; i++) worker.queue.receives.push(notFound());
      await worker.start();
      // The back-offs before the last one: 100 + 200 + 400 + ...
      await worker.clock.advance(100 * (2 ** (failures - 1) - 1));
      return worker;
    }

    it("a send in this process ends the back-off: it receives at once, not when the back-off ends", async () => {
      const { queue, clock, events, loop } = await backingOff(8);
      expect(named(events, "sleep").map(([ms]) => ms)).to.deep.equal([100, 200, 400, 800, 1600, 3200, 6400, 12_800]);
      queue.receives.push(batch([message("m1")], undefined));
      await clock.advance(5000);
      expect(queue.calls).to.have.length(8);
      queue.wake();
      await settle();
      expect(outline(events.slice(-6))).to.deep.equal(["sleep 12800", "wake woken", "receive", "handled", "receive", `sleep ${CAP}`]);
      expect(queue.calls.slice(8)).to.deep.equal(["receive 1", "remove m1", "receive 1"]);
      expect(loop.counters).to.deep.include({ errors: 8, handled: 1, sleptMs: 100 * (2 ** 7 - 1) + 5000 });
    });

    it("a realtime publish ends the back-off too", async () => {
      const { queue, clock, events } = await backingOff(6, { realtimeWakes: true });
      expect(named(events, "sleep").map(([ms]) => ms)).to.deep.equal([100, 200, 400, 800, 1600, 3200]);
      await clock.advance(1000);
      queue.publish();
      await settle();
      expect(outline(events.slice(-4))).to.deep.equal(["sleep 3200", "wake woken", "receive", `sleep ${CAP}`]);
      expect(queue.calls.filter((call) => call === "receive 1")).to.have.length(7);
    });

    it("a wake ends a back-off no sooner than 100 ms after the failure", async () => {
      const { queue, clock, events } = await backingOff(3);
      expect(named(events, "sleep").map(([ms]) => ms)).to.deep.equal([100, 200, 400]);
      await clock.advance(30);
      queue.wake();
      await clock.advance(69);
      expect(queue.calls).to.have.length(3);
      await clock.advance(1);
      expect(queue.calls).to.have.length(4);
      expect(outline(events.slice(-4))).to.deep.equal(["sleep 400", "wake woken", "receive", `sleep ${CAP}`]);
    });

    it("a wake while the failing call is in flight ends the back-off that follows at 100 ms", async () => {
      const reply = held<ReceivedBatch>();
      const { queue, clock, events } = await backingOff(3);
      queue.receives.unshift(reply.promise);
      await clock.advance(400);
      expect(queue.calls).to.have.length(4);
      queue.wake();
      reply.reject(notFound());
      await settle();
      expect(outline(events.slice(-2))).to.deep.equal(["error", "sleep 800"]);
      await clock.advance(99);
      expect(queue.calls).to.have.length(4);
      await clock.advance(1);
      expect(queue.calls).to.have.length(5);
      expect(outline(events.slice(-4))).to.deep.equal(["sleep 800", "wake woken", "receive", `sleep ${CAP}`]);
    });

    it("a flood of wakes against a receive that keeps failing: one call per 100 ms, and the back-offs still double", async () => {
      const { queue, clock, emitter, events, start } = fakeWorker({ maxIdleSleepMs: CAP });
      queue.receives.push(...Array.from({ length: 100 }, notFound));
      const failedAt: number[] = [];
      emitter.on("error", () => failedAt.push(clock.now()));
      await start();
      // A wake every 10 ms for 2 s.
      for (let elapsed = 0; elapsed < 2000; elapsed += 10) {
        queue.wake();
        await clock.advance(10);
      }
      const start0 = failedAt[0];
      expect(failedAt.map((at) => at - start0)).to.deep.equal(Array.from({ length: 21 }, (_, i) => i * 100));
      const ladder = [100, 200, 400, 800, 1600, 3200, 6400, 12_800, ...Array(13).fill(15_000)];
      expect(named(events, "sleep").map(([ms]) => ms)).to.deep.equal(ladder);
    });
  });

  describe("long handlers", () => {
    it("hides the message for another vt every half vt while its handler runs, and stops with the handler", async () => {
      const release = held<void>();
      const { queue, clock, loop, start } = fakeWorker({ maxIdleSleepMs: CAP, handler: () => release.promise });
      queue.receives.push(batch([message("m1")], undefined, 2));
      await start();
      await clock.advance(999);
      expect(queue.calls).to.deep.equal(["receive 1"]);
      await clock.advance(1);
      expect(queue.calls).to.deep.equal(["receive 1", "hide m1 2000"]);
      await clock.advance(1000);
      expect(queue.calls).to.deep.equal(["receive 1", "hide m1 2000", "hide m1 2000"]);
      release.resolve();
      await clock.advance(5000);
      expect(queue.calls).to.deep.equal(["receive 1", "hide m1 2000", "hide m1 2000", "remove m1", "receive 1"]);
      expect(loop.counters).to.deep.include({ extensions: 2, handled: 1 });
    });

    it("stops extending a message that is gone", async () => {
      const release = held<void>();
      const { queue, clock, loop, start } = fakeWorker({ maxIdleSleepMs: CAP, handler: () => release.promise });
      queue.receives.push(batch([message("m1")], undefined, 2));
      queue.hides.push(0);
      await start();
      await clock.advance(5000);
      expect(queue.calls).to.deep.equal(["receive 1", "hide m1 2000"]);
      expect(loop.counters.extensions).to.equal(0);
      release.resolve();
    });
  });

  describe("stop", () => {
    it("during a sleep: the sleep ends 'aborted', `stopped` once, the same promise twice, nothing after", async () => {
      const { queue, events, loop, start } = fakeWorker({ maxIdleSleepMs: CAP });
      await start();
      const first = loop.stop();
      expect(loop.stop()).to.equal(first);
      await first;
      expect(outline(events)).to.deep.equal(["receive", `sleep ${CAP}`, "wake aborted", "stopped"]);
      expect(queue.listeners.inProcess).to.equal(0);
      expect(queue.enlisted.size).to.equal(0);
      queue.wake();
      loop.start();
      await settle();
      expect(queue.calls).to.deep.equal(["receive 1"]);
    });

    it("while a receive is in flight: resolves without waiting for it", async () => {
      const { queue, events, loop, start } = fakeWorker();
      queue.receives.push(new Promise<ReceivedBatch>(() => undefined));
      await start();
      await loop.stop();
      expect(outline(events)).to.deep.equal(["stopped"]);
    });

    it("aborts the handlers' signal and waits for them", async () => {
      let aborted = false;
      const { queue, loop, start } = fakeWorker({
        handler: (_message, { signal }) =>
          new Promise<void>((resolve) =>
            signal.addEventListener("abort", () => {
              aborted = true;
              resolve();
            }),
          ),
      });
      queue.receives.push(batch([message("m1")], undefined));
      await start();
      await loop.stop();
      expect(aborted).to.equal(true);
      expect(queue.calls).to.deep.equal(["receive 1", "remove m1"]);
      expect(loop.counters.handled).to.equal(1);
    });

    it("gives up on a handler that ignores the signal after exactly stopTimeoutMs, and stops extending it", async () => {
      const { queue, clock, events, loop, start } = fakeWorker({ stopTimeoutMs: 5000, handler: () => new Promise(() => undefined) });
      queue.receives.push(batch([message("m1")], undefined, 30));
      await start();
      let stopped = false;
      void loop.stop().then(() => (stopped = true));
      await clock.advance(4999);
      expect(stopped).to.equal(false);
      await clock.advance(1);
      expect(stopped).to.equal(true);
      expect(outline(events)).to.deep.equal(["receive", "stopped"]);
      expect(clock.pending).to.deep.equal([]);
    });

    it("a handler that outlives stopTimeoutMs and then resolves: no delete, one `abandoned` after `stopped`, nothing else", async () => {
      const release = held<void>();
      const { queue, clock, events, loop, start } = fakeWorker({ stopTimeoutMs: 5000, handler: () => release.promise });
      queue.receives.push(batch([message("m1")], undefined, 30));
      await start();
      const stopped = loop.stop();
      await clock.advance(5000);
      await stopped;
      release.resolve();
      await clock.advance(60_000);
      expect(queue.calls).to.deep.equal(["receive 1"]);
      expect(outline(events)).to.deep.equal(["receive", "stopped", "abandoned"]);
      expect(named(events, "abandoned")).to.deep.equal([[message("m1"), { outcome: "resolved" }]]);
      expect(loop.counters).to.deep.include({ handled: 0, abandoned: 1, errors: 0 });
    });

    it("a handler that outlives stopTimeoutMs and then throws: no retry, no `failed`, one `abandoned` with the error", async () => {
      const release = held<void>();
      const { queue, clock, events, loop, start } = fakeWorker({ stopTimeoutMs: 5000, handler: () => release.promise });
      queue.receives.push(batch([message("m1")], undefined, 30));
      await start();
      const stopped = loop.stop();
      await clock.advance(5000);
      await stopped;
      const error = new PoisonError("too late");
      release.reject(error);
      await clock.advance(60_000);
      expect(queue.calls).to.deep.equal(["receive 1"]);
      expect(outline(events)).to.deep.equal(["receive", "stopped", "abandoned"]);
      expect(named(events, "abandoned")).to.deep.equal([[message("m1"), { outcome: "threw", error }]]);
      expect(loop.counters).to.deep.include({ failed: 0, deadLettered: 0, abandoned: 1, errors: 0 });
    });

    it("a delete still in flight when stopTimeoutMs ends: its reply, even an error, is not told after `stopped`", async () => {
      const removal = held<0 | 1>();
      const { queue, clock, events, loop, start } = fakeWorker({ stopTimeoutMs: 5000 });
      queue.receives.push(batch([message("m1")], undefined, 30));
      queue.removes.push(removal.promise);
      await start();
      expect(queue.calls).to.deep.equal(["receive 1", "remove m1"]);
      const stopped = loop.stop();
      await clock.advance(5000);
      await stopped;
      removal.reject(new Error("The client is closed"));
      await settle();
      // The handler ended in time: its message is not abandoned, and the delete's fate is not told.
      expect(outline(events)).to.deep.equal(["receive", "stopped"]);
      expect(loop.counters).to.deep.include({ handled: 0, abandoned: 0, errors: 0 });
    });

    it("through the AbortSignal option, and removes its listener from the signal", async () => {
      const controller = new AbortController();
      const { events, start } = fakeWorker({ maxIdleSleepMs: CAP, signal: controller.signal });
      await start();
      expect(getEventListeners(controller.signal, "abort")).to.have.length(1);
      controller.abort();
      await settle();
      expect(outline(events)).to.deep.equal(["receive", `sleep ${CAP}`, "wake aborted", "stopped"]);
      expect(getEventListeners(controller.signal, "abort")).to.have.length(0);
    });

    it("never starts with an already-aborted signal", async () => {
      const controller = new AbortController();
      controller.abort();
      const { queue, loop, start } = fakeWorker({ signal: controller.signal });
      await start();
      expect(queue.calls).to.deep.equal([]);
      expect(queue.enlisted.size).to.equal(0);
      await loop.stop();
    });
  });
});
