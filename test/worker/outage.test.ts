/**
 * Redis errors and outages: consecutive failed receives back off on the fixed ladder (100 ms
 * doubling, whatever maxIdleSleepMs is); a worker keeps running through a Redis restart, emits
 * `error`, and handles every message sent after recovery; stop() does not hang on a dead server.
 * The restart tests need the harness's own redis-server (skipped with REDIS_URL or a container).
 */
import { expect } from "chai";
import OldRSMQ = require("rsmq");
import RedisSMQ = require("../../lib/index");
import {
  connectionOptions,
  connectionOptionsWith,
  keysOf,
  plainClient,
  singleServerOnly,
  singleServerOptions,
  testRedis,
  uniqueNs,
} from "../support/server";
import { Cleanup, WorkerLog, delay, subscribersOf, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;
/** Why the restart tests skip the cluster target: they stop and start the single server's process. */
const RESTARTS = "restarts the single redis-server";

/** The sleeps from the first `error` event up to the next receive that worked. */
function backOffSleeps(log: WorkerLog): number[] {
  const firstError = log.events.findIndex((event) => event.name === "error");
  const after = log.events.slice(firstError);
  const recovered = after.findIndex((event) => event.name === "receive");
  return (recovered === -1 ? after : after.slice(0, recovered))
    .filter((event) => event.name === "sleep")
    .map((event) => event.args[0] as number);
}

describe("Worker: errors and outages", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;

  beforeEach(() => {
    ns = uniqueNs();
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    rsmq.on("error", () => undefined);
  });
  afterEach(() => cleanup.run());

  it("backs off 100, 200, 400, 800 ms on consecutive receive errors, regardless of maxIdleSleepMs, and resets on success", async () => {
    const handled: string[] = [];
    const worker = cleanup.worker(
      new Worker(rsmq, { qname: "q", maxIdleSleepMs: 50, realtimeWakes: false, handler: (m) => void handled.push(m.message) }),
    );
    const log = new WorkerLog(worker);
    worker.start(); // the queue does not exist yet: every receive fails with queueNotFound
    await waitFor(() => log.count("sleep") >= 4, "four back-offs", 5000);
    expect(log.sleeps().slice(0, 4)).to.deep.equal([100, 200, 400, 800]);
    const errors = log.named("error").map((event) => event.args[0] as Error);
    expect(errors.length).to.be.at.least(4);
    expect(errors.every((error) => error instanceof Error && error.name === "queueNotFound")).to.equal(true);
    expect(worker.counters.errors).to.equal(log.count("error"));
    expect(worker.counters.receives).to.equal(0);

    await rsmq.createQueueAsync({ qname: "q" });
    await rsmq.sendMessageAsync({ qname: "q", message: "after the queue exists" });
    await waitFor(() => handled.length === 1, "the message handled", 5000);

    // A new run of failures starts again at 100 ms. The mark is taken before the delete: the
    // worker may fail and back off once while deleteQueueAsync is still in flight.
    const seen = log.events.length;
    await rsmq.deleteQueueAsync({ qname: "q" });
    await waitFor(() => log.events.slice(seen).some((event) => event.name === "error"), "a new error", 5000);
    await waitFor(() => log.events.slice(seen).some((event) => event.name === "sleep" && event.args[0] !== 50), "a back-off", 5000);
    const next = log.events.slice(seen).filter((event) => event.name === "sleep" && event.args[0] !== 50);
    expect(next[0].args[0]).to.equal(100);
  });

  it("does not emit `error` without a listener (no crash), but still counts errors", async () => {
    const worker = cleanup.worker(
      new Worker(rsmq, { qname: "missing", maxIdleSleepMs: 50, realtimeWakes: false, handler: () => undefined }),
    );
    worker.start();
    await waitFor(() => worker.counters.errors >= 2, "two errors", 5000);
  });

  describe("Redis restarted under a running worker", function () {
    before(function () {
      if (!testRedis().restartable) this.skip();
    });

    it("emits `error`, keeps running, and handles every message sent after recovery (realtime wakes too)", async function () {
      singleServerOnly(this, RESTARTS);
      this.timeout(30_000);
      const sender = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
      sender.on("error", () => undefined);
      await rsmq.createQueueAsync({ qname: "q" });
      await rsmq.createQueueAsync({ qname: "rt" });
      const calls = new Map<string, number>();
      const handler = (message: RedisSMQ.QueueMessage): void => void calls.set(message.message, (calls.get(message.message) ?? 0) + 1);
      // One worker polling through the outage, one asleep for the whole of it (woken by realtime only).
      const worker = cleanup.worker(new Worker(rsmq, { qname: "q", maxIdleSleepMs: 200, handler }));
      const sleeper = cleanup.worker(new Worker(rsmq, { qname: "rt", maxIdleSleepMs: 60_000, handler }));
      const log = new WorkerLog(worker);
      worker.start();
      sleeper.start();
      await sender.sendMessageAsync({ qname: "q", message: "before" });
      await waitFor(() => calls.get("before") === 1, "the first message");

      try {
        await testRedis().stopProcess();
        await delay(500);
      } finally {
        await testRedis().startProcess();
      }

      // Nothing persisted: the worker's receives now fail (queueNotFound) until the queue is back.
      await waitFor(() => log.count("error") >= 1, "an error from the worker", 10_000);
      await sender.createQueueAsync({ qname: "q" });
      await sender.createQueueAsync({ qname: "rt" });
      const messages = Array.from({ length: 20 }, (_, i) => `after ${i}`);
      await Promise.all(messages.map((message) => sender.sendMessageAsync({ qname: "q", message })));
      await waitFor(() => messages.every((message) => calls.has(message)), "every message sent after recovery", 15_000);
      expect(messages.map((message) => calls.get(message))).to.deep.equal(messages.map(() => 1));

      // The realtime subscription came back with the connection: rsmq 0.12.4 wakes the sleeper.
      const client = await plainClient();
      cleanup.add(() => client.quit());
      await waitFor(async () => (await subscribersOf(client, keysOf(ns, "rt").realtimeChannel)) === 1, "the resubscription", 10_000);
      const old = new OldRSMQ({ ...singleServerOptions(ns), realtime: true });
      cleanup.add(() => new Promise((resolve) => old.quit(resolve)));
      await old.sendMessageAsync({ qname: "rt", message: "realtime after restart" });
      await waitFor(() => calls.get("realtime after restart") === 1, "the realtime message", 5000);
      // The counter moves once the message is deleted, just after the handler returns.
      await waitFor(() => sleeper.counters.handled === 1, "the realtime message deleted", 5000);
    });

    it("backs off on the ladder during the outage when the offline queue is off", async function () {
      singleServerOnly(this, RESTARTS);
      this.timeout(30_000);
      const direct = cleanup.rsmq(new RedisSMQ(connectionOptionsWith(ns, { disableOfflineQueue: true })));
      direct.on("error", () => undefined);
      await waitFor(() => direct.connected, "the connection"); // no offline queue to wait in
      await direct.createQueueAsync({ qname: "q" });
      const handled: string[] = [];
      const worker = cleanup.worker(
        new Worker(direct, { qname: "q", maxIdleSleepMs: 200, realtimeWakes: false, handler: (m) => void handled.push(m.message) }),
      );
      const log = new WorkerLog(worker);
      worker.start();
      await waitFor(() => log.asleep, "the worker asleep");
      try {
        await testRedis().stopProcess();
        await waitFor(() => backOffSleeps(log).length >= 4, "four back-offs during the outage", 10_000);
      } finally {
        await testRedis().startProcess();
      }
      expect(backOffSleeps(log).slice(0, 4)).to.deep.equal([100, 200, 400, 800]);
      expect(log.named("error").length).to.be.at.least(4);

      const sender = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
      await sender.createQueueAsync({ qname: "q" });
      await sender.sendMessageAsync({ qname: "q", message: "after" });
      await waitFor(() => handled.includes("after"), "the message after recovery", 20_000);
      // Every back-off up to recovery followed the ladder.
      const ladder = [100, 200, 400, 800, 1600, 3200, 6400, 12800, 15000];
      const sleeps = backOffSleeps(log);
      expect(sleeps).to.deep.equal(ladder.slice(0, sleeps.length));
    });

    it("stop() resolves promptly while Redis is down", async function () {
      singleServerOnly(this, RESTARTS);
      this.timeout(50_000);
      // A stop that waited for the receive held in the offline queue would take offlineTimeoutMs:
      // at 60 s, a bound of half that tells the two apart however slow the machine is.
      const offlineTimeoutMs = 60_000;
      const patient = cleanup.rsmq(new RedisSMQ({ ...connectionOptions(ns), offlineTimeoutMs }));
      patient.on("error", () => undefined);
      await patient.createQueueAsync({ qname: "q" });
      const worker = cleanup.worker(new Worker(patient, { qname: "q", maxIdleSleepMs: 100, handler: () => undefined }));
      const log = new WorkerLog(worker);
      worker.start();
      await waitFor(() => log.count("sleep") >= 2, "the worker idling");
      let took = Infinity;
      try {
        await testRedis().stopProcess();
        await delay(400); // its next receive is now waiting for the server
        const started = Date.now();
        const stopped = worker.stop().then(() => (took = Date.now() - started));
        await Promise.race([stopped, delay(offlineTimeoutMs / 2)]);
      } finally {
        await testRedis().startProcess();
      }
      expect(took, "stop() during the outage, against the offlineTimeoutMs a pending receive waits").to.be.below(offlineTimeoutMs / 2);
    });
  });
});
