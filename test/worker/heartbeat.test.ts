/**
 * A Worker's heartbeat: its entry among the queue's consumers (listConsumersAsync), written in the
 * look it makes anyway. Without Redis (a fake queue that keeps heartbeats, a fake clock): a look
 * half a cap or more after the last beat carries one, so each look of an idle Worker does; a busy
 * Worker, which receives without looking, beats on its own 1.5 caps after the last; a failed beat
 * is reported; stop removes the entry, and a Worker that never beat sends nothing. Then for real:
 * listed with host, pid, concurrency and start after its first look, gone at once after a stop.
 */
import { expect } from "chai";
import { hostname } from "os";
import RedisSMQ = require("../../lib/index");
import type { ConsumerBeat } from "../../lib/operations/consumer-beat";
import type { ReceiveBlock } from "../../lib/operations/receive-block";
import { MIN_CAP_MS } from "../../lib/worker/heartbeat";
import { settle } from "../support/fake-clock";
import { batch, FakeQueue, fakeWorker, held, message } from "../support/fake-queue";
import { Cleanup, freshQueue, waitFor, WorkerLog } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;
const CAP = 10_000;

/** A fake queue that keeps heartbeats: a look with a beat is recorded as "nextDue+beat". */
class BeatingFakeQueue extends FakeQueue {
  readonly beats: ConsumerBeat[] = [];
  /** Replies to the next beats of the worker's own, in order; then done. */
  readonly ownBeats: Array<Error | undefined> = [];

  override nextDue(beat?: ConsumerBeat): Promise<number | null | ReceiveBlock> {
    if (beat === undefined) return super.nextDue();
    this.beats.push(beat);
    const answer = super.nextDue();
    this.calls[this.calls.length - 1] = "nextDue+beat";
    return answer;
  }

  beat(beat: ConsumerBeat): Promise<void> {
    this.calls.push("beat");
    this.beats.push(beat);
    const reply = this.ownBeats.shift();
    return reply ? Promise.reject(reply) : Promise.resolve();
  }

  removeConsumer(workerId: string): Promise<0 | 1> {
    this.calls.push(`removeConsumer ${workerId}`);
    return Promise.resolve(1);
  }
}

describe("Worker: heartbeat", () => {
  describe("without Redis (fake queue, fake clock)", () => {
    it("idle: every look (one per cap) carries the beat, with a ttl of two caps; nothing else is sent; stop removes the entry", async () => {
      const { queue, clock, loop, start } = fakeWorker({ maxIdleSleepMs: CAP, concurrency: 3 }, new BeatingFakeQueue());
      await start();
      expect(queue.calls).to.deep.equal(["receive 3"]);
      await clock.advance(4 * CAP);
      expect(queue.calls).to.deep.equal(["receive 3", ...Array(4).fill("nextDue+beat")]);
      const [beat] = queue.beats;
      expect(beat.workerId).to.match(/^[A-Za-z0-9]{16}$/);
      expect(beat.ttlMs).to.equal(2 * CAP);
      expect(JSON.parse(beat.json)).to.deep.equal({ host: hostname(), pid: process.pid, concurrency: 3, startedAt: 1_700_000_000_000 });
      expect(new Set(queue.beats)).to.have.property("size", 1);
      await loop.stop();
      expect(queue.calls.slice(-1)).to.deep.equal([`removeConsumer ${beat.workerId}`]);
    });

    it("busy (receiving without looks): beats on its own 1.5 caps after the last beat; a failed own beat is reported and tried again half a cap later", async () => {
      const gate = held<void>();
      const queue = new BeatingFakeQueue();
      const { clock, events, loop, start } = fakeWorker({ maxIdleSleepMs: CAP, handler: () => gate.promise }, queue);
      queue.receives.push(batch([message("m1")]));
      queue.ownBeats.push(new Error("connection lost"));
      await start();
      await clock.advance(1.5 * CAP - 1);
      expect(queue.calls.filter((call) => call === "beat")).to.have.length(0);
      await clock.advance(1);
      await settle();
      expect(queue.calls.filter((call) => call === "beat")).to.have.length(1);
      expect(events.filter(([name]) => name === "error").map(([, error]) => (error as Error).message)).to.deep.equal(["connection lost"]);
      await clock.advance(CAP / 2);
      await settle();
      expect(queue.calls.filter((call) => call === "beat")).to.have.length(2);
      await clock.advance(1.5 * CAP);
      await settle();
      expect(queue.calls.filter((call) => call === "beat")).to.have.length(3);
      expect(loop.counters.errors).to.equal(1);
      gate.resolve();
    });

    it("the look event says whether the look carried the beat: after a busy spell's own beat, the first idle look carries none, the next does", async () => {
      const gate = held<void>();
      const queue = new BeatingFakeQueue();
      const { clock, events, start } = fakeWorker({ maxIdleSleepMs: CAP, handler: () => gate.promise }, queue);
      queue.receives.push(batch([message("m1")]));
      await start();
      // Handled at 0.9 caps: the idle sleep (to 1.9 caps) holds the own beat (1.5 caps after start),
      // so the look that ends it, less than half a cap after that beat, carries none.
      await clock.advance(0.9 * CAP);
      gate.resolve();
      await settle();
      await clock.advance(2 * CAP);
      await settle();
      expect(queue.calls.filter((call) => call === "beat" || call.startsWith("nextDue"))).to.deep.equal([
        "beat",
        "nextDue",
        "nextDue+beat",
      ]);
      expect(events.filter(([name]) => name === "look").map(([, , beat]) => beat)).to.deep.equal([false, true]);
    });

    it("a worker stopped before any beat sends no removal; a cap below 1 s beats on a 1 s cap", async () => {
      const { queue, loop, start } = fakeWorker({ maxIdleSleepMs: CAP }, new BeatingFakeQueue());
      await start();
      await loop.stop();
      expect(queue.calls).to.deep.equal(["receive 1"]);

      const short = fakeWorker({ maxIdleSleepMs: 200 }, new BeatingFakeQueue());
      await short.start();
      await short.clock.advance(2000);
      expect(short.queue.beats[0].ttlMs).to.equal(2 * MIN_CAP_MS);
      // A look every 200 ms; one in every 500 ms or more carries the beat.
      const looks = short.queue.calls.filter((call) => call.startsWith("nextDue"));
      expect(looks.filter((call) => call === "nextDue+beat")).to.have.length(4);
      expect(looks).to.have.length(10);
      await short.loop.stop();
    });
  });

  describe("for real", function () {
    this.timeout(20_000);
    const cleanup = new Cleanup();
    afterEach(() => cleanup.run());

    it("listed after its first look with host, pid, concurrency and start; a clean stop removes the entry at once", async () => {
      const { rsmq } = await freshQueue(cleanup);
      const worker = cleanup.worker(new Worker(rsmq, { qname: "q", handler: () => undefined, concurrency: 4, maxIdleSleepMs: 300 }));
      const log = new WorkerLog(worker);
      const before = Date.now();
      worker.start();
      await waitFor(() => worker.counters.looks >= 1 && log.asleep, "the first look");
      const consumers = await rsmq.listConsumersAsync({ qname: "q" });
      expect(consumers).to.have.length(1);
      const [entry] = consumers;
      expect(entry).to.deep.include({ host: hostname(), pid: process.pid, concurrency: 4 });
      expect(entry.id).to.match(/^[A-Za-z0-9]{16}$/);
      expect(entry.startedAt).to.be.within(before, Date.now());
      expect(entry.expiresAt - entry.lastSeenAt).to.equal(2 * MIN_CAP_MS);
      await worker.stop();
      expect(await rsmq.listConsumersAsync({ qname: "q" })).to.deep.equal([]);
    });
  });
});
