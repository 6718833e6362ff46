/**
 * Cancel from anywhere: a message deleted by anyone (or received again by another consumer) while
 * its handler runs is found by the visibility extender, whose hide (carrying the receipt) answers
 * 0. The handler's signal then aborts with a MessageCancelledError, `cancelled` is told once, and
 * the worker does nothing more with the message: no delete, no `handled`, no `failed`, no `error`.
 * First without Redis (a fake queue and clock), then for real: a delete from another process
 * during a 10 s handler aborts its signal within one extension interval (vt 2 s: 1 s).
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { MessageCancelledError } from "../../lib/worker/message-cancelled-error";
import { builtEntry, runChild } from "../support/child-process";
import { settle } from "../support/fake-clock";
import { batch, fakeWorker, held, message } from "../support/fake-queue";
import { childProcessOptions, connectionOptions } from "../support/server";
import { Cleanup, freshQueue, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;
const CAP = 60_000;

describe("Worker: cancel from anywhere", () => {
  describe("without Redis (fake queue, fake clock)", () => {
    it("an extension answering 0 aborts the handler's signal with a MessageCancelledError; nothing more is sent for the message", async () => {
      const reasons: unknown[] = [];
      const { queue, clock, events, loop, start } = fakeWorker({
        maxIdleSleepMs: CAP,
        vt: 2,
        handler: (_message, { signal }) =>
          new Promise<void>((_resolve, reject) =>
            signal.addEventListener("abort", () => {
              reasons.push(signal.reason);
              reject(signal.reason as Error);
            }),
          ),
      });
      queue.receives.push(batch([message("m1", 3)], null, 2));
      queue.hides.push(0);
      await start();
      await clock.advance(1000);
      await settle();
      expect(queue.calls).to.deep.equal(["receive 1", "hide m1 2000", "receive 1"]);
      expect(reasons).to.have.length(1);
      const reason = reasons[0] as MessageCancelledError;
      expect(reason).to.be.instanceOf(MessageCancelledError);
      expect(reason).to.include({ name: "MessageCancelledError", code: "MESSAGE_CANCELLED", id: "m1", qname: "q" });
      expect(RedisSMQ.MessageCancelledError).to.equal(MessageCancelledError);
      const names = events.map(([name]) => name);
      expect(names.filter((name) => name === "cancelled")).to.have.length(1);
      expect(names).to.not.include.members(["failed", "handled", "error", "retry"]);
      expect(loop.counters).to.deep.include({ cancelled: 1, handled: 0, failed: 0, errors: 0, extensions: 0 });
      // No more extensions for it.
      await clock.advance(5000);
      expect(queue.calls.filter((call) => call.startsWith("hide"))).to.have.length(1);
    });

    it("a handler that resolves after the cancel (its signal never read): no delete, no `handled`", async () => {
      const gate = held<void>();
      const { queue, clock, events, loop, start } = fakeWorker({ maxIdleSleepMs: CAP, vt: 2, handler: () => gate.promise });
      queue.receives.push(batch([message("m1")], null, 2));
      queue.hides.push(0);
      await start();
      await clock.advance(1000);
      gate.resolve();
      await settle();
      expect(queue.calls).to.deep.equal(["receive 1", "hide m1 2000", "receive 1"]);
      expect(events.map(([name]) => name))
        .to.include("cancelled")
        .and.not.include("handled");
      expect(loop.counters).to.deep.include({ cancelled: 1, handled: 0, errors: 0 });
    });

    it("a delete that answers 0 (the message gone or received again before any extension): `cancelled`, not `handled`, no error", async () => {
      const { queue, events, loop, start } = fakeWorker({ maxIdleSleepMs: CAP });
      queue.receives.push(batch([message("m1")]));
      queue.removes.push(0);
      await start();
      expect(queue.calls).to.deep.equal(["receive 1", "remove m1", "receive 1"]);
      expect(events.map(([name]) => name)).to.deep.equal(["receive", "cancelled", "receive", "sleep"]);
      expect(loop.counters).to.deep.include({ cancelled: 1, handled: 0, errors: 0 });
    });

    it("a failed handler whose retry answers 0: `failed`, then `cancelled` (no retry); a stop aborts a signal that was read with the stop's reason", async () => {
      const { queue, events, loop, start } = fakeWorker({
        maxIdleSleepMs: CAP,
        handler: () => {
          throw new Error("boom");
        },
      });
      queue.receives.push(batch([message("m1")]));
      queue.hides.push(0);
      await start();
      expect(events.map(([name]) => name)).to.deep.equal(["receive", "failed", "cancelled", "receive", "sleep"]);
      expect(loop.counters).to.deep.include({ cancelled: 1, failed: 1, retried: 0, errors: 0 });

      let reason: unknown;
      const stopping = fakeWorker({
        maxIdleSleepMs: CAP,
        handler: (_message, { signal }) =>
          new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(void (reason = signal.reason)))),
      });
      stopping.queue.receives.push(batch([message("m2")]));
      await stopping.start();
      await stopping.loop.stop();
      expect(reason).to.be.instanceOf(Error).and.not.instanceOf(MessageCancelledError);
      expect((reason as Error).name).to.equal("AbortError");
    });
  });

  describe("for real: a delete from another process", function () {
    this.timeout(30_000);
    const cleanup = new Cleanup();
    afterEach(() => cleanup.run());

    it("during a 10 s handler aborts its signal within one extension interval (vt 2 s: 1 s); nothing is reported as an error", async () => {
      const { ns, rsmq, sender } = await freshQueue(cleanup);
      const id = await sender.sendMessageAsync({ qname: "q", message: "long" });
      let started = 0;
      let abortedAt = 0;
      let reason: unknown;
      const errors: Error[] = [];
      const cancelled: string[] = [];
      const worker = cleanup.worker(
        new Worker(rsmq, {
          qname: "q",
          vt: 2,
          realtimeWakes: false,
          handler: (_message, { signal }) =>
            new Promise<void>((resolve) => {
              started = Date.now();
              const timer = setTimeout(resolve, 10_000);
              signal.addEventListener("abort", () => {
                abortedAt = Date.now();
                reason = signal.reason;
                clearTimeout(timer);
                resolve();
              });
            }),
        }),
      );
      worker.on("error", (error) => void errors.push(error));
      worker.on("cancelled", (message) => void cancelled.push(message.id));
      worker.start();
      await waitFor(() => started > 0, "the handler to start");
      const program = `
        const RedisSMQ = require(${JSON.stringify(builtEntry)});
        const rsmq = new RedisSMQ(${JSON.stringify(childProcessOptions(ns))});
        rsmq.deleteMessageAsync({ qname: "q", id: ${JSON.stringify(id)} })
          .then((found) => { process.stdout.write(String(found) + " " + Date.now()); return rsmq.quitAsync(); })
          .catch((error) => { console.error(error); process.exit(1); });`;
      const child = await runChild(program);
      expect(child.code, child.stderr).to.equal(0);
      const [found, deletedAt] = child.stdout.split(" ").map(Number);
      expect(found).to.equal(1);
      await waitFor(() => abortedAt > 0, "the handler's signal to abort", 5_000);
      // The extender looks every vt/2 (1 s): the abort comes at the first look after the delete.
      expect(abortedAt - deletedAt).to.be.below(1_000 + 500);
      expect(abortedAt - started).to.be.below(10_000);
      expect(reason).to.be.instanceOf(MessageCancelledError);
      expect(cancelled).to.deep.equal([id]);
      await waitFor(() => worker.counters.cancelled === 1, "the cancel counted");
      expect(worker.counters).to.deep.include({ cancelled: 1, handled: 0, failed: 0, errors: 0 });
      expect(errors).to.deep.equal([]);
    });
  });
});
