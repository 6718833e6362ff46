/**
 * Idle cost: an idle worker sleeps the full maxIdleSleepMs between receives (one command per cap,
 * not per tick), counted exactly from INFO commandstats; a delayed message is received when it is
 * due, not at the cap and not by polling in between; the floor and the cap hold the sleep.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { commandStatsDuring } from "../support/wire";
import { Cleanup, freshQueue, ReceiveCounter, WorkerLog, delay, waitFor } from "../support/worker";

const { Worker } = RedisSMQ;

describe("Worker: idle cost", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let sender: RedisSMQ;

  beforeEach(async () => {
    ({ ns, rsmq, sender } = await freshQueue(cleanup));
  });
  afterEach(() => cleanup.run());

  it("receives about once per maxIdleSleepMs when idle (INFO commandstats), not on a tick", async () => {
    const cap = 200;
    const windowMs = 1200;
    const worker = cleanup.worker(new Worker(rsmq, { qname: "q", handler: () => undefined, maxIdleSleepMs: cap }));
    const log = new WorkerLog(worker);
    worker.start();
    // Past the start-up receives (the first, and the one after the realtime subscription).
    await waitFor(() => log.count("sleep") >= 3, "three idle sleeps");

    // After a sleep nothing cut short, the worker only looks (read-only) and receives when something
    // is due: on an empty queue every poll is a look, still one EVALSHA.
    const pollsBefore = worker.counters.receives + worker.counters.looks;
    const stats = await commandStatsDuring(() => delay(windowMs));
    const pollsDuring = worker.counters.receives + worker.counters.looks - pollsBefore;

    // window / cap = 6. A 10 ms polling tick would make about 120.
    expect(stats.evalsha, JSON.stringify(stats)).to.be.within(windowMs / cap - 2, windowMs / cap + 2);
    // Nothing else from a client (no EVAL, PING or SUBSCRIBE): the rest are the receive script's
    // own calls, one HMGET per script run (and, on a cluster, the replicas' REPLCONF ACKs, which
    // are replication, not the worker).
    const fromScript = new Set(["hmget", "time", "zrangebyscore", "zrange"]);
    const notClients = new Set([...fromScript, "replconf"]);
    expect(Object.keys(stats).filter((name) => !notClients.has(name)), JSON.stringify(stats)).to.deep.equal(["evalsha"]);
    expect(stats.hmget).to.equal(stats.evalsha);
    expect(pollsDuring).to.be.within(stats.evalsha - 1, stats.evalsha + 1);
    // An empty queue sleeps the full cap every time.
    expect(new Set(log.sleeps())).to.deep.equal(new Set([cap]));
    expect(worker.counters.emptyReceives).to.equal(worker.counters.receives);
  });

  it("holds a far-off message's sleep to the cap: still one receive per cap", async () => {
    await sender.sendMessageAsync({ qname: "q", message: "next hour", delay: 3600 });
    const cap = 200;
    const worker = cleanup.worker(new Worker(rsmq, { qname: "q", handler: () => undefined, maxIdleSleepMs: cap }));
    const log = new WorkerLog(worker);
    worker.start();
    await waitFor(() => log.count("sleep") >= 3, "three idle sleeps");
    const stats = await commandStatsDuring(() => delay(1200));
    expect(stats.evalsha).to.be.within(4, 8);
    expect(new Set(log.sleeps())).to.deep.equal(new Set([cap]));
    // The reply said when the message is due (about an hour), which the cap overrode.
    const nextDue = log.named("receive").map((event) => event.args[1] as number);
    for (const ms of nextDue) expect(ms).to.be.within(3_590_000, 3_600_000);
  });

  it("sleeps until a delayed message is due, not until the cap, with no polling in between", async () => {
    const counter = await ReceiveCounter.open(ns, "q");
    cleanup.add(() => counter.close());
    await sender.sendMessageAsync({ qname: "q", message: "in a second", delay: 1 });
    const handled: string[] = [];
    const worker = cleanup.worker(
      new Worker(rsmq, { qname: "q", handler: (message) => void handled.push(message.message), maxIdleSleepMs: 60_000 }),
    );
    const log = new WorkerLog(worker);
    const started = Date.now();
    worker.start();
    await waitFor(() => handled.length === 1, "the delayed message", 10_000);
    const elapsed = Date.now() - started;
    await waitFor(() => log.asleep, "the worker asleep after it"); // no receive in flight at stop
    await worker.stop();

    expect(handled).to.deep.equal(["in a second"]);
    // Far below the 60 s cap: it slept until due (about 1 s).
    expect(elapsed).to.be.below(10_000);
    // The first receive, maybe one after the realtime subscription, then the one that got it.
    const receives = log.named("receive").map((event) => event.args[0]);
    expect(receives.indexOf(1) + 1, JSON.stringify(receives)).to.be.within(2, 3);
    // The server saw exactly the receives the worker reports.
    expect(await counter.count()).to.equal(worker.counters.receives);
    const firstSleep = log.sleeps()[0];
    expect(firstSleep).to.be.above(0).and.at.most(1000);
  });

  it("a delayed message sent while it sleeps at the cap: it wakes, learns the due time, sleeps until then", async () => {
    const counter = await ReceiveCounter.open(ns, "q");
    cleanup.add(() => counter.close());
    const handled: string[] = [];
    const worker = cleanup.worker(
      new Worker(rsmq, { qname: "q", handler: (message) => void handled.push(message.message), maxIdleSleepMs: 5000 }),
    );
    const log = new WorkerLog(worker);
    worker.start();
    // Two receives: the first, and the one the realtime subscription's wake causes; then asleep.
    await waitFor(() => log.asleep && worker.counters.receives >= 2, "the worker asleep");
    const seen = log.events.length;

    await sender.sendMessageAsync({ qname: "q", message: "in a second", delay: 1 });
    await waitFor(() => handled.length === 1, "the delayed message", 10_000);
    await waitFor(() => log.asleep, "the worker asleep after it"); // no receive in flight at stop
    await worker.stop();
    const afterSend = log.events.slice(seen);

    // One receive on the send's wake (nothing due yet, but now it knows when), one when due.
    const receives = afterSend.filter((event) => event.name === "receive").map((event) => event.args[0]);
    expect(receives.indexOf(1) + 1, JSON.stringify(receives)).to.equal(2);
    const sleeps = afterSend.filter((event) => event.name === "sleep").map((event) => event.args[0] as number);
    expect(sleeps[0], JSON.stringify(sleeps)).to.be.above(0).and.at.most(1000);
    expect(await counter.count()).to.equal(worker.counters.receives);
  });

  it("raises a near due time to minIdleSleepMs and holds a far one to maxIdleSleepMs", async () => {
    // A message in flight elsewhere (hidden for 1 s) is the next due.
    await sender.sendMessageAsync({ qname: "q", message: "in flight" });
    await sender.receiveMessageAsync({ qname: "q", vt: 1 });
    const floorWorker = cleanup.worker(
      new Worker(rsmq, { qname: "q", handler: () => undefined, minIdleSleepMs: 1500, maxIdleSleepMs: 5000, realtimeWakes: false }),
    );
    const floorLog = new WorkerLog(floorWorker);
    floorWorker.start();
    await waitFor(() => floorLog.count("sleep") >= 1, "a sleep");
    const [received, nextDueMs] = floorLog.named("receive")[0].args as [number, number];
    expect(received).to.equal(0);
    expect(nextDueMs).to.be.within(1, 1000);
    expect(floorLog.sleeps()[0]).to.equal(1500);
    await floorWorker.stop();

    await sender.sendMessageAsync({ qname: "q", message: "later", delay: 10 });
    const capWorker = cleanup.worker(new Worker(rsmq, { qname: "q", handler: () => undefined, maxIdleSleepMs: 700, realtimeWakes: false }));
    const capLog = new WorkerLog(capWorker);
    capWorker.start();
    await waitFor(() => capLog.count("sleep") >= 1, "a sleep");
    // In flight for up to 1 s more, so the cap may or may not bind; the 10 s message alone would.
    expect(capLog.sleeps()[0]).to.be.at.most(700);
  });
});
