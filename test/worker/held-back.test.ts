/**
 * The Worker held back by its queue (a pause, a rate limit, a block), without Redis: a fake queue
 * replies with the blocks the receive scripts send, a fake clock moves only when the test says.
 * Paused: it takes nothing more, sleeps until `until` or the cap (one look per cap: the idle
 * promise), ignores send wakes, and a control wake (a resume) makes it receive at once; running
 * handlers finish and their deletes go out without waiting for the resume. Limited: it sleeps the
 * retry time plus a jitter below min(interval, 10) ms, at most the cap, and a batch cut short by
 * the limit is handled before it sleeps. A handler's RateLimitError bounces its message: no
 * failure, no retry, its own event and counter.
 */
import { expect } from "chai";
import { heldBackSleep, MAX_LIMIT_JITTER_MS } from "../../lib/worker/held-back";
import { RateLimitError } from "../../lib/retry/rate-limit-error";
import type { ReceivedBatch } from "../../lib/operations/receive-message";
import { settle } from "../support/fake-clock";
import { batch, blockedBatch, CombiningFakeQueue, fakeWorker, held, limited, message, paused } from "../support/fake-queue";
import type { LoopEvent } from "../support/fake-queue";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const CAP = 60_000;
const RESUME = "~resume:1700000000123";

/** Event names, with the ms of sleeps and the reason of wakes and blocks. */
function outline(events: LoopEvent[]): string[] {
  return events.map(([name, ...args]) => {
    if (name === "sleep" || name === "wake") return `${name} ${String(args[0])}`;
    if (name === "heldBack") return `heldBack ${(args[0] as { reason: string }).reason}`;
    return name;
  });
}

describe("Worker held back by a pause or a rate limit (fake queue, fake clock)", () => {
  describe("the sleep (heldBackSleep)", () => {
    it("paused: until `until`, at most the cap; without one, the cap; never below 1 ms", () => {
      expect(heldBackSleep(paused(), CAP, Math.random)).to.equal(CAP);
      expect(heldBackSleep(paused(2500), CAP, Math.random)).to.equal(2500);
      expect(heldBackSleep(paused(3_600_000), CAP, Math.random)).to.equal(CAP);
      expect(heldBackSleep(paused(0), CAP, Math.random)).to.equal(1);
    });

    it("limited: the retry time plus a jitter in [0, min(interval, 10)), at most the cap", () => {
      expect(heldBackSleep(limited(250, 100), CAP, () => 0)).to.equal(250);
      expect(heldBackSleep(limited(250, 100), CAP, () => 0.999)).to.equal(250 + MAX_LIMIT_JITTER_MS - 1);
      expect(heldBackSleep(limited(250, 4), CAP, () => 0.999)).to.equal(253);
      // A block (interval 0) has no jitter; a far one is held to the cap.
      expect(heldBackSleep(limited(250, 0), CAP, () => 0.999)).to.equal(250);
      expect(heldBackSleep(limited(90_000, 100), CAP, () => 0.5)).to.equal(CAP);
      expect(heldBackSleep(limited(0, 0), CAP, () => 0)).to.equal(1);
    });
  });

  describe("paused", () => {
    it("takes nothing and costs one look per cap: exact calls over five caps", async () => {
      const { queue, clock, events, loop, start } = fakeWorker({ maxIdleSleepMs: CAP });
      queue.receives.push(blockedBatch(paused()));
      for (let i = 0; i < 5; i++) queue.looks.push(paused());
      await start();
      expect(queue.calls).to.deep.equal(["receive 1"]);
      expect(outline(events)).to.deep.equal(["receive", "heldBack paused", `sleep ${CAP}`]);
      await clock.advance(5 * CAP);
      expect(queue.calls).to.deep.equal(["receive 1", ...Array(5).fill("nextDue")]);
      expect(loop.counters).to.deep.include({ receives: 1, looks: 5, heldBack: 6, sleeps: 6, errors: 0 });
    });

    it("with `until`: sleeps until then and receives (no look)", async () => {
      const { queue, clock, events, start } = fakeWorker({ maxIdleSleepMs: CAP });
      queue.receives.push(blockedBatch(paused(2500)), batch([message("m1")]));
      await start();
      expect(outline(events)).to.deep.equal(["receive", "heldBack paused", "sleep 2500"]);
      await clock.advance(2499);
      expect(queue.calls).to.deep.equal(["receive 1"]);
      await clock.advance(1);
      expect(queue.calls).to.deep.equal(["receive 1", "receive 1", "remove m1", "receive 1"]);
    });

    it("ignores send wakes (hub and channel); a control wake makes it receive at once, and its second copy is dropped", async () => {
      const { queue, events, loop, start } = fakeWorker({ maxIdleSleepMs: CAP, realtimeWakes: true });
      queue.receives.push(blockedBatch(paused()));
      await start();
      const before = queue.calls.length;
      queue.wake("a".repeat(32));
      queue.publish("b".repeat(32));
      queue.publish("3");
      queue.wake();
      await settle();
      expect(queue.calls.length).to.equal(before);
      queue.wake(RESUME);
      await settle();
      queue.publish(RESUME);
      await settle();
      expect(queue.calls.filter((call) => call === "receive 1")).to.have.length(2);
      expect(outline(events).slice(-4)).to.deep.equal([`sleep ${CAP}`, "wake woken", "receive", `sleep ${CAP}`]);
      expect(loop.counters.heldBack).to.equal(1);
      // Resumed: send wakes count again.
      queue.wake("c".repeat(32));
      await settle();
      expect(queue.calls.filter((call) => call === "receive 1")).to.have.length(3);
    });

    it("a resume heard while the poll was out (its reply still says paused): receives again at once", async () => {
      const reply = held<ReceivedBatch>();
      const { queue, events, start } = fakeWorker({ maxIdleSleepMs: CAP });
      queue.receives.push(reply.promise);
      await start();
      queue.wake(RESUME);
      reply.resolve(blockedBatch(paused()));
      await settle();
      expect(queue.calls).to.deep.equal(["receive 1", "receive 1"]);
      expect(outline(events)).to.deep.equal(["receive", "heldBack paused", "receive", `sleep ${CAP}`]);
    });

    it("a send wake while the poll was out does not end the pause's sleep", async () => {
      const reply = held<ReceivedBatch>();
      const { queue, events, start } = fakeWorker({ maxIdleSleepMs: CAP });
      queue.receives.push(reply.promise);
      await start();
      queue.wake("a".repeat(32));
      reply.resolve(blockedBatch(paused()));
      await settle();
      expect(queue.calls).to.deep.equal(["receive 1"]);
      expect(outline(events)).to.deep.equal(["receive", "heldBack paused", `sleep ${CAP}`]);
    });

    it("in-flight handlers finish while paused: one delete rides on the poll that finds the pause, the next goes alone at once", async () => {
      const gates = [held<void>(), held<void>()];
      const handler = (received: { id: string }): Promise<void> => gates[Number(received.id.slice(1)) - 1].promise;
      const { queue, clock, events, loop, start } = fakeWorker(
        { concurrency: 2, batchSize: 2, maxIdleSleepMs: CAP, handler },
        new CombiningFakeQueue(),
      );
      queue.receives.push(batch([message("m1"), message("m2")]), blockedBatch(paused()));
      await start();
      expect(queue.calls).to.deep.equal(["receive 2"]);
      gates[0].resolve();
      await settle();
      // The slot it freed sends the receive, carrying its delete: the delete is done, the receive held back.
      expect(queue.calls).to.deep.equal(["receive 2", "deleteAndReceive m1 1"]);
      expect(outline(events)).to.deep.equal(["receive", "handled", "receive", "heldBack paused", `sleep ${CAP}`]);
      gates[1].resolve();
      await settle();
      expect(queue.calls).to.deep.equal(["receive 2", "deleteAndReceive m1 1", "remove m2"]);
      expect(loop.counters).to.deep.include({ handled: 2, failed: 0 });
      // Still asleep until the cap (beside the visibility extender's timer).
      expect(clock.pending.map((sleep) => sleep.ms)).to.include(CAP);
    });

    it("a retry this worker schedules does not cut the pause's sleep short", async () => {
      const gate = held<void>();
      const { queue, clock, loop, start } = fakeWorker({
        concurrency: 2,
        maxIdleSleepMs: CAP,
        retry: { initialDelayMs: 400, jitter: "none" },
        handler: () => gate.promise.then(() => Promise.reject(new Error("downstream down"))),
      });
      queue.receives.push(batch([message("m1")], 0), blockedBatch(paused()));
      await start();
      expect(queue.calls).to.deep.equal(["receive 2", "receive 1"]);
      gate.resolve();
      await settle();
      expect(queue.calls).to.deep.equal(["receive 2", "receive 1", "hide m1 400"]);
      await clock.advance(CAP - 1);
      expect(queue.calls).to.have.length(3);
      expect(loop.counters).to.deep.include({ retried: 1, heldBack: 1 });
    });
  });

  describe("limited", () => {
    it("sleeps the retry time plus its jitter, ignoring send wakes, then receives (no look)", async () => {
      const { queue, clock, events, start } = fakeWorker({ maxIdleSleepMs: CAP }, undefined, () => 0.5);
      queue.receives.push(blockedBatch(limited(250, 100)), batch([message("m1")]));
      await start();
      expect(outline(events)).to.deep.equal(["receive", "heldBack limited", "sleep 255"]);
      queue.wake("a".repeat(32));
      await clock.advance(254);
      expect(queue.calls).to.deep.equal(["receive 1"]);
      await clock.advance(1);
      expect(queue.calls).to.deep.equal(["receive 1", "receive 1", "remove m1", "receive 1"]);
    });

    it("a changed or removed limit's control wake (`~limit:<ms>`) ends the sleep at once", async () => {
      const { queue, events, start } = fakeWorker({ maxIdleSleepMs: CAP }, undefined, () => 0);
      queue.receives.push(blockedBatch(limited(5000, 0)), batch([message("m1")]));
      await start();
      queue.wake("a".repeat(32));
      await settle();
      expect(queue.calls).to.deep.equal(["receive 1"]);
      queue.wake("~limit:1700000000456");
      await settle();
      expect(queue.calls).to.deep.equal(["receive 1", "receive 1", "remove m1", "receive 1"]);
      expect(outline(events).slice(0, 5)).to.deep.equal(["receive", "heldBack limited", "sleep 5000", "wake woken", "receive"]);
    });

    it("a batch the limit cut short: its messages are handled, then it sleeps as limited", async () => {
      const { queue, clock, events, loop, start } = fakeWorker({ concurrency: 5, batchSize: 5, maxIdleSleepMs: CAP }, undefined, () => 0);
      queue.receives.push(blockedBatch(limited(80, 100), [message("m1"), message("m2")]));
      await start();
      expect(queue.calls).to.deep.equal(["receive 5", "remove m1", "remove m2"]);
      expect(outline(events)).to.deep.equal(["receive", "heldBack limited", "sleep 80", "handled", "handled"]);
      await clock.advance(80);
      expect(queue.calls.slice(3)).to.deep.equal(["receive 5"]);
      expect(loop.counters).to.deep.include({ handled: 2, heldBack: 1 });
    });

    it("a long block is held to the cap, after which the worker looks", async () => {
      const { queue, clock, events, start } = fakeWorker({ maxIdleSleepMs: 1000 }, undefined, () => 0);
      queue.receives.push(blockedBatch(limited(5000, 0)));
      queue.looks.push(limited(4000, 0), 0);
      await start();
      await clock.advance(1000);
      expect(queue.calls).to.deep.equal(["receive 1", "nextDue"]);
      await clock.advance(1000);
      expect(queue.calls).to.deep.equal(["receive 1", "nextDue", "nextDue", "receive 1"]);
      expect(outline(events).slice(0, 6)).to.deep.equal([
        "receive",
        "heldBack limited",
        "sleep 1000",
        "look",
        "heldBack limited",
        "sleep 1000",
      ]);
    });
  });

  describe("RateLimitError", () => {
    it("bounces the message with the ms given: no failed or retry event, its own event and counter", async () => {
      const error = new RateLimitError(500);
      const { queue, events, loop, start } = fakeWorker({
        maxIdleSleepMs: CAP,
        handler: () => {
          throw error;
        },
      });
      queue.receives.push(batch([message("m1", 1)]));
      await start();
      expect(queue.calls).to.deep.equal(["receive 1", "rateLimitBounce m1 500", "receive 1"]);
      const names = events.map(([name]) => name);
      expect(names).to.not.include.members(["failed", "retry", "deadLettered", "dropped", "stop"]);
      expect(events.filter(([name]) => name === "rateLimited")).to.deep.equal([["rateLimited", message("m1", 1), { ms: 500, error }]]);
      expect(loop.counters).to.deep.include({ rateLimited: 1, failed: 0, retried: 0, deadLettered: 0 });
    });

    it("without ms: the bounce says when the message is back, and the sleep ends then", async () => {
      const { queue, clock, start } = fakeWorker({
        concurrency: 2,
        maxIdleSleepMs: CAP,
        handler: () => Promise.reject(new RateLimitError()),
      });
      queue.receives.push(batch([message("m1")]));
      await start();
      expect(queue.calls).to.deep.equal(["receive 2", "rateLimitBounce m1 undefined"]);
      await clock.advance(999);
      expect(queue.calls).to.have.length(2);
      await clock.advance(1);
      expect(queue.calls.slice(2)).to.deep.equal(["receive 2"]);
    });

    it("a message gone meanwhile: no event; a failed bounce: an error, no event, nothing lost (it reappears after its vt)", async () => {
      const { queue, events, loop, start } = fakeWorker({
        concurrency: 2,
        maxIdleSleepMs: CAP,
        handler: () => Promise.reject(new RateLimitError(100)),
      });
      queue.receives.push(batch([message("m1"), message("m2")], null));
      queue.bounces.push(-1, new Error("connection lost"));
      await start();
      expect(queue.calls).to.deep.equal(["receive 2", "rateLimitBounce m1 100", "rateLimitBounce m2 100", "receive 2"]);
      expect(events.filter(([name]) => name === "rateLimited")).to.deep.equal([]);
      expect(loop.counters).to.deep.include({ rateLimited: 0, failed: 0, errors: 1 });
    });

    it("is an Error named RateLimitError with its ms; a bad ms is refused where it is made", () => {
      const error = new RateLimitError(1500);
      expect(error).to.be.instanceOf(Error);
      expect(error.name).to.equal("RateLimitError");
      expect(error.ms).to.equal(1500);
      expect(new RateLimitError().ms).to.equal(undefined);
      expect(new RateLimitError(0, "429 from the mail API").message).to.equal("429 from the mail API");
      for (const bad of [-1, 1.5, Number.NaN, Infinity, "100" as unknown as number]) {
        expect(() => new RateLimitError(bad)).to.throw(RangeError, "Expected `ms` of RateLimitError to be an integer from 0 and up");
      }
    });
  });
});
