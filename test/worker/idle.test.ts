/**
 * Idle cost: an idle worker makes one poll (one EVALSHA, or EVALSHA_RO for a read-only look, counted exactly from INFO commandstats)
 * and then one sleep of the full maxIdleSleepMs, every time: not a tick; a delayed message is received when it is
 * due, not at the cap and not by polling in between; the floor and the cap hold the sleep. Its heartbeat rides in
 * its looks (a look that carries it is an EVALSHA): the one call more over its life is its entry's removal at stop.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { DueWindow } from "../support/due-window";
import { onCluster, plainClient } from "../support/server";
import type { OtherClients } from "../support/quiet-server";
import { clientsNow, commandStatsDuring } from "../support/wire";
import { Cleanup, freshQueue, ReceiveCounter, WorkerLog, loadPollScripts, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;
/** The stop's one script call: the worker's heartbeat entry removed from the queue's consumers. */
const STOP_CALLS = 1;
/** The start's one read-only script call besides its polls: the queue's schedules (none here), read once before the first receive. */
const SCHEDULE_READS = 1;

describe("Worker: idle cost", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let sender: RedisSMQ;
  /** The connections open before the test's own: the counts below read the whole server, so none of them may send meanwhile. */
  let others: OtherClients;

  beforeEach(async () => {
    others = await clientsNow();
    ({ ns, rsmq, sender } = await freshQueue(cleanup));
  });
  afterEach(() => cleanup.run());

  /**
   * What the receive and look scripts call inside Redis (counted by commandstats, but not sent by a
   * client); hscan is the sweep of leftover fields a receive makes when it finds the queue empty.
   */
  const FROM_SCRIPTS = new Set(["hmget", "time", "zrangebyscore", "zrange", "hscan", "hset", "hdel"]);

  /**
   * The script calls the server ran, one per poll the worker counted (EVALSHA per receive and per
   * look that carried its heartbeat, EVALSHA_RO per plain look), and the removal of its heartbeat
   * entry at stop; resolves how many looks carried the beat (at least the first).
   */
  function expectOneScriptCallPerPoll(stats: Record<string, number>, counters: RedisSMQ.WorkerStats): number {
    const beats = counters.looks - ((stats.evalsha_ro ?? 0) - SCHEDULE_READS);
    expect(beats, JSON.stringify(stats)).to.be.within(1, counters.looks);
    expect(stats.evalsha, JSON.stringify(stats)).to.equal(counters.receives + beats + STOP_CALLS);
    return beats;
  }

  /**
   * Runs a worker on q with `cap` from start to stop, with the server's INFO commandstats over its
   * whole life: until it has made `looks` polls after start-up (the first receive, and the one the
   * realtime subscription's wake causes), then stopped while asleep, so no call is in flight.
   * Returns the stats, the log, and where the events after start-up begin.
   */
  async function idleWorker(cap: number, looks: number) {
    await loadPollScripts(ns, "q");
    const worker = cleanup.worker(new Worker(rsmq, { qname: "q", handler: () => undefined, maxIdleSleepMs: cap }));
    const log = new WorkerLog(worker);
    let settled = 0;
    const stats = await commandStatsDuring(
      async () => {
        worker.start();
        // Nothing is sent, so only the start and the subscription's wake make a receive.
        await waitFor(() => worker.counters.receives >= 2 && log.asleep, "the start-up receives");
        settled = log.events.length;
        const looksBefore = worker.counters.looks;
        await waitFor(() => worker.counters.looks >= looksBefore + looks && log.asleep, `${looks} more looks`);
        await worker.stop();
      },
      { others },
    );
    return { stats, log, settled, counters: worker.counters };
  }

  it("idle, each poll is one EVALSHA followed by one sleep of the full maxIdleSleepMs (INFO commandstats), not a tick", async () => {
    const cap = 200;
    const { stats, log, settled, counters } = await idleWorker(cap, 5);

    // After start-up: a look (read-only) that finds the queue empty, then one sleep of the cap, and
    // nothing else, every time. A polling tick would sleep less than the cap, or poll twice.
    const course = log.outline(settled);
    const polls = Math.floor((course.length - 2) / 2);
    expect(polls).to.be.at.least(5);
    expect(course).to.deep.equal([
      ...Array(polls)
        .fill(["look null", `sleep ${cap}`])
        .flat(),
      "wake aborted",
      "stopped",
    ]);
    // Every sleep of its life, start-up included, was the full cap.
    expect(new Set(log.sleeps())).to.deep.equal(new Set([cap]));
    expect(counters.emptyReceives).to.equal(counters.receives);
    // One sleep per poll, but for the start-up: when the subscription's wake arrives while the
    // first receive is in flight, the worker receives again at once, with no sleep in between.
    const isPoll = (event: string) => event.startsWith("receive ") || event.startsWith("look ");
    const whole = log.outline();
    const pollsRightAfterPolls = whole.flatMap((event, index) => (index > 0 && isPoll(event) && isPoll(whole[index - 1]) ? [index] : []));
    expect(
      pollsRightAfterPolls.every((index) => index < settled),
      JSON.stringify(whole),
    ).to.equal(true);
    expect(pollsRightAfterPolls.length).to.be.at.most(1);
    expect(counters.sleeps).to.equal(counters.receives + counters.looks - pollsRightAfterPolls.length);

    // The server ran exactly one script call per poll the worker counted (EVALSHA per receive,
    // EVALSHA_RO per read-only look) and the read of its schedules at start, each with its one
    // HMGET; from a client nothing else but the
    // wake subscriptions, once each (no EVAL, no resubscribe; on a cluster a sharded one, and the
    // replicas' REPLCONF ACKs, which are replication), and its health check riding the looks: at
    // most one PING per look, none while start-up had just heard the subscription confirmed (none
    // on a cluster, whose subscriptions have none).
    const beats = expectOneScriptCallPerPoll(stats, counters);
    expect(stats.hmget).to.equal(counters.receives + counters.looks + STOP_CALLS + SCHEDULE_READS);
    const fromClients = Object.entries(stats).filter(([name]) => !FROM_SCRIPTS.has(name) && name !== "replconf");
    const { ping = 0, ...others } = Object.fromEntries(fromClients);
    // Two channels: the queue's wake channel and its realtime channel.
    const subscription = onCluster() ? { ssubscribe: 2, sunsubscribe: 2 } : { subscribe: 2, unsubscribe: 2 };
    expect(others, JSON.stringify(stats)).to.deep.equal({
      evalsha: counters.receives + beats + STOP_CALLS,
      evalsha_ro: counters.looks - beats + SCHEDULE_READS,
      ...subscription,
    });
    if (onCluster()) expect(ping, JSON.stringify(stats)).to.equal(0);
    else expect(ping, JSON.stringify(stats)).to.be.within(1, counters.looks);
  });

  it("holds a far-off message's sleep to the cap: still one EVALSHA per sleep of the cap", async () => {
    await sender.sendMessageAsync({ qname: "q", message: "next hour", delay: 3600 });
    const cap = 200;
    const { stats, log, settled, counters } = await idleWorker(cap, 3);
    // After start-up: a look, then one sleep of the cap, every time.
    const course = log.outline(settled).map((event) => (event.startsWith("look ") ? "look" : event));
    const polls = Math.floor((course.length - 2) / 2);
    expect(polls).to.be.at.least(3);
    expect(course).to.deep.equal([
      ...Array(polls)
        .fill(["look", `sleep ${cap}`])
        .flat(),
      "wake aborted",
      "stopped",
    ]);
    expect(new Set(log.sleeps())).to.deep.equal(new Set([cap]));
    // Each reply said when the message is due (about an hour), which the cap overrode.
    const nextDue = [...log.named("receive").map((event) => event.args[1]), ...log.named("look").map((event) => event.args[0])];
    for (const ms of nextDue) expect(ms).to.be.within(3_590_000, 3_600_000);
    expectOneScriptCallPerPoll(stats, counters);
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
    // A message in flight elsewhere is the next due: hidden for 30 s, below the 45 s floor, and
    // longer than this test may take (its timeout), so no stall of the machine can show it early.
    await sender.sendMessageAsync({ qname: "q", message: "in flight" });
    const clock = await plainClient();
    cleanup.add(() => clock.quit());
    const window = await DueWindow.open(clock);
    await sender.receiveMessageAsync({ qname: "q", vt: 30 });
    const floorWorker = cleanup.worker(
      new Worker(rsmq, { qname: "q", handler: () => undefined, minIdleSleepMs: 45_000, maxIdleSleepMs: 60_000, realtimeWakes: false }),
    );
    const floorLog = new WorkerLog(floorWorker);
    floorWorker.start();
    await waitFor(() => floorLog.count("sleep") >= 1, "a sleep");
    const [received, nextDueMs] = floorLog.named("receive")[0].args as [number, number];
    expect(received).to.equal(0);
    expect(nextDueMs).to.be.within(...(await window.range(30_000)));
    expect(floorLog.sleeps()[0]).to.equal(45_000);
    await floorWorker.stop();

    await sender.sendMessageAsync({ qname: "q", message: "later", delay: 10 });
    const capWorker = cleanup.worker(new Worker(rsmq, { qname: "q", handler: () => undefined, maxIdleSleepMs: 700, realtimeWakes: false }));
    const capLog = new WorkerLog(capWorker);
    capWorker.start();
    await waitFor(() => capLog.count("sleep") >= 1, "a sleep");
    // Both are due well after the cap (the one in flight in up to 30 s, the other in 10 s): it binds.
    expect(capLog.sleeps()[0]).to.be.at.most(700);
  });
});
