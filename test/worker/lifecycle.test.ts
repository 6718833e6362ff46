/**
 * A worker's life: long handlers kept hidden by extending vt (handled once), failures retried
 * after vt with the worker waking for them by itself, and stopping -- while asleep, while handlers
 * run (cooperating with the signal or not), twice, and through an AbortSignal -- without losing
 * a message.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { builtEntry, runChild } from "../support/child-process";
import { DEFAULT_STOP_TIMEOUT_MS } from "../../lib/worker/worker-option-table";
import { connectionOptions, keysOf, onPassedClient, plainClient, singleServerOptions, uniqueNs } from "../support/server";
import { Cleanup, freshQueue, WorkerLog, deferred, serverTimePassed, subscribersOf, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;
type QueueMessage = RedisSMQ.QueueMessage;

/**
 * Before a "nothing happened" check: `ms` on the server's clock, then a round trip on `rsmq`'s
 * connection, which answers after any receive a worker on it had sent.
 */
async function serverTimeAndRoundTrip(client: Parameters<typeof serverTimePassed>[0], rsmq: RedisSMQ, ms: number): Promise<void> {
  await serverTimePassed(client, ms);
  await rsmq.getQueueAttributesAsync({ qname: "q" });
}

describe("Worker: lifecycle", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let sender: RedisSMQ;

  beforeEach(async () => {
    ({ ns, rsmq, sender } = await freshQueue(cleanup));
  });
  afterEach(() => cleanup.run());

  describe("long handlers", () => {
    it("extends the visibility while a handler outlives vt: handled once, never delivered to another worker", async () => {
      const seenByA: QueueMessage[] = [];
      const seenByB: QueueMessage[] = [];
      const finishA = deferred();
      const a = cleanup.worker(
        new Worker(rsmq, {
          qname: "q",
          vt: 1,
          maxIdleSleepMs: 60_000,
          handler: async (message, { signal }) => {
            seenByA.push(message);
            // Let go at stop too, so a failing test does not wait out stopTimeoutMs.
            await Promise.race([finishA.promise, new Promise((resolve) => signal.addEventListener("abort", resolve))]);
          },
        }),
      );
      a.start();
      await waitFor(() => a.counters.receives >= 1, "worker A's first receive");
      const id = await sender.sendMessageAsync({ qname: "q", message: "slow" });
      await waitFor(() => seenByA.length === 1, "worker A to take the message");

      // A second worker, on its own connection, polling every 100 ms: it would get the message
      // as soon as it became visible.
      const other = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
      const b = cleanup.worker(
        new Worker(other, { qname: "q", vt: 1, maxIdleSleepMs: 100, realtimeWakes: false, handler: (m) => void seenByB.push(m) }),
      );
      b.start();
      // A's handler runs on until B has polled three times after A's second extension: by then the
      // message's first vt (1 s) has ended, so only the extensions keep it from B.
      await waitFor(() => a.counters.extensions >= 2 || seenByB.length > 0, "two extensions by worker A", 10_000);
      expect(seenByB, "delivered to worker B while worker A's handler ran").to.deep.equal([]);
      const polls = (): number => b.counters.receives + b.counters.looks;
      const pollsBefore = polls();
      await waitFor(() => polls() >= pollsBefore + 3, "three polls by worker B");
      finishA.resolve();

      await waitFor(() => a.counters.handled === 1, "worker A to finish", 10_000);
      expect(seenByA.map((m) => [m.id, m.rc])).to.deep.equal([[id, 1]]);
      expect(seenByB).to.deep.equal([]);
      expect(a.counters.extensions).to.be.at.least(2);
      // Deleted, and never received a second time.
      const attributes = await sender.getQueueAttributesAsync({ qname: "q" });
      expect(attributes).to.deep.include({ msgs: 0, totalrecv: 1 });

      // Extending stopped with the handler: no extension by the time the server's clock shows
      // more than one extension period (vt / 2) gone, and worker B has polled twice more after
      // that (its polls prove this process's timers ran past any extension that was due).
      const extensions = a.counters.extensions;
      const clock = await plainClient();
      cleanup.add(() => clock.quit());
      await serverTimePassed(clock, 701);
      const pollsThen = polls();
      await waitFor(() => polls() >= pollsThen + 2, "two more polls by worker B");
      expect(a.counters.extensions).to.equal(extensions);
    });
  });

  describe("failures", () => {
    it("a throwing handler: `failed`, the message reappears after vt and is handled again (rc 2), waking by itself", async () => {
      const calls: Array<[string, number]> = [];
      const worker = cleanup.worker(
        new Worker(rsmq, {
          qname: "q",
          vt: 1,
          maxIdleSleepMs: 60_000,
          realtimeWakes: false,
          handler: async (message) => {
            calls.push([message.id, message.rc]);
            if (message.rc === 1) throw new Error("first attempt fails");
          },
        }),
      );
      const log = new WorkerLog(worker);
      worker.start();
      await waitFor(() => log.asleep, "the worker asleep");
      const id = await sender.sendMessageAsync({ qname: "q", message: "retry me" });
      await waitFor(() => worker.counters.handled === 1, "the retry handled", 10_000);

      expect(calls).to.deep.equal([
        [id, 1],
        [id, 2],
      ]);
      const failed = log.named("failed");
      expect(failed).to.have.length(1);
      expect((failed[0].args[0] as QueueMessage).id).to.equal(id);
      expect((failed[0].args[1] as Error).message).to.equal("first attempt fails");
      expect(worker.counters).to.deep.include({ failed: 1, handled: 1, errors: 0 });
      expect((await sender.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);

      // Between the failure and the retry: the receive that found nothing due (learning the due
      // time), then the one that got it. No polling: the cap is 60 s and nothing else woke it.
      const failedAt = log.events.indexOf(failed[0]);
      const between = log.events.slice(failedAt).filter((event) => event.name === "receive");
      const untilRetry = between.findIndex((event) => event.args[0] === 1) + 1;
      expect(untilRetry, JSON.stringify(between.map((event) => event.args))).to.be.within(1, 2);
      expect(log.events.slice(failedAt).filter((event) => event.name === "wake")).to.deep.equal([]);

      // After the retry: one receive finds the queue empty, and it sleeps the cap (no extra
      // receive for the retry time it had noted, which has passed).
      await waitFor(() => log.asleep, "the worker asleep again");
      const handledAt = log.events.indexOf(log.named("handled")[0]);
      const after = log.events.slice(handledAt);
      expect(after.filter((event) => event.name === "receive").map((event) => event.args)).to.deep.equal([[0, null]]);
      expect(after.filter((event) => event.name === "sleep").map((event) => event.args[0])).to.deep.equal([60_000]);
    });

    it("a handler that throws synchronously is a failure too", async () => {
      const worker = cleanup.worker(
        new Worker(rsmq, {
          qname: "q",
          vt: 1,
          maxIdleSleepMs: 60_000,
          handler: (message) => {
            if (message.rc === 1) throw new TypeError("sync");
          },
        }),
      );
      const log = new WorkerLog(worker);
      worker.start();
      await sender.sendMessageAsync({ qname: "q", message: "x" });
      await waitFor(() => worker.counters.handled === 1, "the retry handled", 10_000);
      expect(log.named("failed").map((event) => (event.args[1] as Error).message)).to.deep.equal(["sync"]);
    });
  });

  describe("listeners", () => {
    it("a throwing event listener neither stops the loop nor crashes the process: it is reported as `error`", async () => {
      const worker = cleanup.worker(
        new Worker(rsmq, {
          qname: "q",
          vt: 1,
          maxIdleSleepMs: 60_000,
          realtimeWakes: false,
          handler: (message) => {
            if (message.rc === 1) throw new Error("handler failure");
          },
        }),
      );
      const reported: Error[] = [];
      worker.on("error", (error) => reported.push(error));
      for (const event of ["receive", "sleep", "failed", "handled"] as const) {
        worker.on(event, () => {
          throw new Error(`${event} listener bug`);
        });
      }
      worker.start();
      await sender.sendMessageAsync({ qname: "q", message: "x" });
      await waitFor(() => worker.counters.handled === 1, "the message handled on its retry", 10_000);
      const messages = new Set(reported.map((error) => error.message));
      for (const event of ["receive", "sleep", "failed", "handled"]) expect(messages).to.include(`${event} listener bug`);
      // Still running: a new message is handled.
      await sender.sendMessageAsync({ qname: "q", message: "y" });
      await waitFor(() => worker.counters.handled === 2 || worker.counters.failed === 2, "the next message taken", 10_000);
    });

    it("removes its listener from the AbortSignal option when it stops", async () => {
      const { getEventListeners } = await import("events");
      const controller = new AbortController();
      const workers = Array.from({ length: 5 }, () =>
        cleanup.worker(new Worker(rsmq, { qname: "q", handler: () => undefined, realtimeWakes: false, signal: controller.signal })),
      );
      for (const worker of workers) worker.start();
      expect(getEventListeners(controller.signal, "abort").length).to.be.at.least(5);
      await Promise.all(workers.map((worker) => worker.stop()));
      expect(getEventListeners(controller.signal, "abort")).to.have.length(0);
    });
  });

  describe("stop", () => {
    it("while asleep: resolves promptly (far before the cap), wakes 'aborted', emits `stopped` once, receives no more", async () => {
      const worker = cleanup.worker(new Worker(rsmq, { qname: "q", handler: () => undefined, maxIdleSleepMs: 60_000 }));
      const log = new WorkerLog(worker);
      worker.start();
      const client = await plainClient();
      cleanup.add(() => client.quit());
      await waitFor(
        async () => log.asleep && worker.counters.receives >= 2 && (await subscribersOf(client, keysOf(ns, "q").realtimeChannel)) === 1,
        "asleep and subscribed",
      );

      const seen = log.events.length;
      // Far before the cap: before the sleep it cut short would have ended by itself.
      const sleptAt = log.named("sleep").slice(-1)[0].at;
      const first = worker.stop();
      expect(worker.stop()).to.equal(first);
      await first;
      expect(Date.now() - sleptAt).to.be.below(60_000);
      expect(log.events.slice(seen).map((event) => [event.name, ...event.args])).to.deep.equal([["wake", "aborted"], ["stopped"]]);
      await worker.stop();
      expect(log.count("stopped")).to.equal(1);

      // Its wakes are gone: no subscription, and a send in this process makes it do nothing.
      expect(await subscribersOf(client, keysOf(ns, "q").realtimeChannel)).to.equal(0);
      const receives = worker.counters.receives;
      await sender.sendMessageAsync({ qname: "q", message: "after stop" });
      await serverTimeAndRoundTrip(client, rsmq, 200);
      expect(worker.counters.receives).to.equal(receives);
      expect((await sender.getQueueAttributesAsync({ qname: "q" })).hiddenmsgs).to.equal(0);

      // start() after stop() does nothing.
      worker.start();
      await serverTimeAndRoundTrip(client, rsmq, 100);
      expect(worker.counters.receives).to.equal(receives);
    });

    it("while a handler runs: its signal fires, stop waits for it, then the message is deleted", async () => {
      let signalFired = false;
      let finished = false;
      const worker = cleanup.worker(
        new Worker(rsmq, {
          qname: "q",
          maxIdleSleepMs: 60_000,
          handler: (_message, { signal }) =>
            new Promise<void>((resolve) => {
              signal.addEventListener("abort", () => {
                signalFired = true;
                // Winds down a little after the signal, as a real handler would.
                setTimeout(() => {
                  finished = true;
                  resolve();
                }, 150);
              });
            }),
        }),
      );
      worker.start();
      await sender.sendMessageAsync({ qname: "q", message: "busy" });
      await waitFor(() => worker.counters.receives >= 1 && worker.counters.receives > worker.counters.emptyReceives, "the message taken");
      const receives = worker.counters.receives;
      await worker.stop();
      expect(signalFired).to.equal(true);
      expect(finished).to.equal(true);
      expect(worker.counters).to.deep.include({ handled: 1, receives });
      expect((await sender.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);
    });

    it("with a handler that ignores the signal: resolves after stopTimeoutMs; the message reappears after vt, not lost", async function () {
      // Longer than the default stopTimeoutMs, so a stop that waited for that fails on its assertion below.
      this.timeout(DEFAULT_STOP_TIMEOUT_MS + 15_000);
      const release = deferred();
      let finished = false;
      const worker = cleanup.worker(
        new Worker(rsmq, {
          qname: "q",
          vt: 1,
          stopTimeoutMs: 200,
          maxIdleSleepMs: 60_000,
          handler: async () => {
            await release.promise;
            finished = true;
          },
        }),
      );
      worker.start();
      const id = await sender.sendMessageAsync({ qname: "q", message: "stuck" });
      await waitFor(() => worker.counters.receives > worker.counters.emptyReceives, "the message taken");

      const started = Date.now();
      await worker.stop();
      const took = Date.now() - started;
      expect(finished).to.equal(false);
      // It waited for the given stopTimeoutMs (less 1 ms: timers round), not for the default; a
      // stall of the machine only lengthens it.
      expect(took).to.be.at.least(199).and.below(DEFAULT_STOP_TIMEOUT_MS);

      // Extensions stopped with stop(): the message becomes visible after its vt (1 s).
      let again: QueueMessage | undefined;
      await waitFor(
        async () => {
          const received = await sender.receiveMessageAsync({ qname: "q", vt: 30 });
          if ("id" in received) again = received;
          return again !== undefined;
        },
        "the message to reappear",
        5000,
      );
      expect(again!.id).to.equal(id);
      expect(again!.rc).to.equal(2);

      // The stuck handler ends after `stopped`: the stopped worker leaves its message alone
      // (stop-timeout.test.ts has the rest).
      release.resolve();
      await waitFor(() => finished && worker.counters.abandoned === 1, "the stuck handler to end, abandoned");
      expect(worker.counters.handled).to.equal(0);
    });

    it("stops through the AbortSignal option, as stop() does", async () => {
      const controller = new AbortController();
      const worker = cleanup.worker(
        new Worker(rsmq, { qname: "q", handler: () => undefined, maxIdleSleepMs: 60_000, realtimeWakes: false, signal: controller.signal }),
      );
      const log = new WorkerLog(worker);
      worker.start();
      await waitFor(() => log.asleep, "the worker asleep");
      const stopped = new Promise<void>((resolve) => worker.once("stopped", resolve));
      controller.abort();
      await stopped;
      expect(log.named("wake").map((event) => event.args[0])).to.deep.equal(["aborted"]);
      // stop() afterwards returns the promise the abort started.
      await worker.stop();
      expect(log.count("stopped")).to.equal(1);
    });

    it("never starts with an already-aborted signal, and stop() still resolves", async () => {
      const controller = new AbortController();
      controller.abort();
      const worker = cleanup.worker(
        new Worker(rsmq, { qname: "q", handler: () => undefined, maxIdleSleepMs: 100, signal: controller.signal }),
      );
      worker.start();
      const client = await plainClient();
      cleanup.add(() => client.quit());
      await serverTimeAndRoundTrip(client, rsmq, 250);
      expect(worker.counters.receives).to.equal(0);
      await worker.stop();
    });

    it("a second start() does not start a second loop", async () => {
      const worker = cleanup.worker(new Worker(rsmq, { qname: "q", handler: () => undefined, maxIdleSleepMs: 100, realtimeWakes: false }));
      const log = new WorkerLog(worker);
      expect(worker.start()).to.equal(worker);
      expect(worker.start()).to.equal(worker);
      await waitFor(() => worker.counters.looks >= 4 && log.asleep, "four looks");
      await worker.stop();
      // One loop: the first receive, then one sleep after each poll (a look, on an empty queue).
      // Two loops would poll twice in a row and sleep twice in a row.
      const looks = worker.counters.looks;
      expect(log.outline()).to.deep.equal([
        "receive 0 null",
        "sleep 100",
        ...Array(looks).fill(["look null", "sleep 100"]).flat(),
        "wake aborted",
        "stopped",
      ]);
      expect(worker.counters).to.deep.include({ receives: 1, sleeps: looks + 1 });
    });
  });

  describe("quitAsync() while workers run", () => {
    it("stops the instance's workers first, then closes: the process exits by itself", async () => {
      // Two workers: one in a handler (which only ends when its signal aborts), one asleep.
      const program = `
        const RedisSMQ = require(${JSON.stringify(builtEntry)});
        const rsmq = new RedisSMQ(JSON.parse(process.env.OPTIONS));
        const events = [];
        process.on("exit", () => process.stdout.write(JSON.stringify(events)));
        const worker = (qname, handler) => {
          const w = new RedisSMQ.Worker(rsmq, { qname, handler });
          w.on("error", (error) => events.push(qname + ": error " + error.message));
          w.on("stopped", () => events.push(qname + ": stopped"));
          return w.start();
        };
        (async () => {
          await rsmq.createQueueAsync({ qname: "busy" });
          await rsmq.createQueueAsync({ qname: "idle" });
          let handling;
          const started = new Promise((resolve) => (handling = resolve));
          worker("busy", (message, { signal }) => {
            handling();
            return new Promise((resolve) => signal.addEventListener("abort", () => resolve(events.push("busy: aborted"))));
          });
          const idle = worker("idle", () => undefined);
          await new Promise((resolve) => idle.once("sleep", resolve));
          await rsmq.sendMessageAsync({ qname: "busy", message: "x" });
          await started;
          events.push("quit: " + (await rsmq.quitAsync()));
        })().catch((error) => { console.error(error); process.exit(1); });
      `;
      // A client passed in cannot be given to a child process: there the package opens its own connection.
      const options = onPassedClient() ? singleServerOptions(ns) : connectionOptions(ns);
      const outcome = await runChild(program, { OPTIONS: JSON.stringify(options) });
      expect(outcome.exited, `the process did not exit within 10 s; stdout: ${outcome.stdout}; stderr: ${outcome.stderr}`).to.equal(true);
      expect(outcome.code, outcome.stderr).to.equal(0);
      const events = JSON.parse(outcome.stdout) as string[];
      // Both stopped before quitAsync() resolved, and nothing failed afterwards ("The client is closed").
      expect(events.slice(0, -1)).to.have.members(["busy: aborted", "busy: stopped", "idle: stopped"]);
      expect(events.indexOf("busy: aborted")).to.be.below(events.indexOf("busy: stopped"));
      expect(events[events.length - 1]).to.equal("quit: OK");
    });

    it("leaves a worker stopped, so start() after quitAsync() does nothing", async () => {
      const worker = cleanup.worker(new Worker(rsmq, { qname: "q", handler: () => undefined }));
      let stopped = false;
      worker.once("stopped", () => (stopped = true));
      worker.start();
      await waitFor(() => worker.counters.receives >= 1, "the first receive");
      await rsmq.quitAsync();
      expect(stopped).to.equal(true);
      const receives = worker.counters.receives;
      worker.start();
      expect(worker.counters.receives).to.equal(receives);
    });
  });
});
