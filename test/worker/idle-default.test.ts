/**
 * The idle cost at the DEFAULT maxIdleSleepMs (30 s), measured over 65 s from INFO commandstats:
 * every command the server ran while one idle worker (with its realtime subscription) waited, one
 * EVALSHA_RO (a read-only look) for each of its polls, each followed by one sleep of 30 s.
 * Slow, so it runs only with LONG_TESTS=1; it prints the count and the per-hour extrapolation.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, uniqueNs } from "../support/server";
import { commandStatsDuring } from "../support/wire";
import { Cleanup, WorkerLog, delay, waitFor } from "../support/worker";

const { Worker } = RedisSMQ;
const WINDOW_MS = 65_000;
/**
 * What the receive and look-up scripts call inside Redis (counted by commandstats, but not sent by a client),
 * and on a cluster the replicas' REPLCONF ACKs (replication, not the worker).
 */
const NOT_FROM_CLIENTS = new Set(["hmget", "time", "zrangebyscore", "zrange", "replconf"]);

describe("Worker: idle cost at the default maxIdleSleepMs (LONG_TESTS=1)", function () {
  const cleanup = new Cleanup();
  before(function () {
    if (process.env.LONG_TESTS !== "1") this.skip();
  });
  afterEach(() => cleanup.run());

  it("makes about one poll (a read-only look, on an empty queue) per 30 s and nothing else", async function () {
    this.timeout(WINDOW_MS + 70_000);
    const ns = uniqueNs();
    const rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    await rsmq.createQueueAsync({ qname: "q" });
    const worker = cleanup.worker(new Worker(rsmq, { qname: "q", handler: () => undefined }));
    const log = new WorkerLog(worker);
    worker.start();
    // Past start-up: the first receive, the one the realtime subscription's wake causes, and the
    // first look after a full sleep (which loads the look-up script with one EVAL).
    await waitFor(
      () => log.asleep && worker.counters.receives >= 2 && worker.counters.looks >= 1,
      "the worker asleep after a look",
      40_000,
    );
    const polls = (): number[] => log.events.filter((event) => event.name === "receive" || event.name === "look").map((event) => event.at);
    const startupPolls = polls().length;
    const settled = log.events.length;
    // The window opens while the worker is asleep for up to 30 s and closes while it is asleep
    // again, so no poll is in flight at either end: the server's count and the worker's agree.
    const stats = await commandStatsDuring(async () => {
      await delay(WINDOW_MS);
      await waitFor(() => log.asleep, "the worker asleep", 40_000);
    });
    const pollsDuring = polls().length - startupPolls;
    // The polls' own spacing (from the last start-up poll on), for a rate that does not depend on
    // where the window fell.
    const times = polls().slice(startupPolls - 1);
    const gaps = times.slice(1).map((at, i) => at - times[i]);
    const meanGap = gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length;
    const fromClients = Object.entries(stats).filter(([name]) => !NOT_FROM_CLIENTS.has(name));
    const total = fromClients.reduce((sum, [, calls]) => sum + calls, 0);
    const perHour = (total * 3_600_000) / WINDOW_MS;
    console.log(
      `      idle worker, default maxIdleSleepMs: ${JSON.stringify(Object.fromEntries(fromClients))} in ${WINDOW_MS / 1000} s ` +
        `(all commands: ${JSON.stringify(stats)}) -> ${perHour.toFixed(1)} client commands per hour; ` +
        `poll spacing ${JSON.stringify(gaps)} ms -> ${(3_600_000 / meanGap).toFixed(1)} polls per hour; sleeps: ${JSON.stringify(log.sleeps())}`,
    );
    // One EVALSHA_RO per poll, each a read-only look followed by one sleep of 30 s; besides them only the PINGs
    // of the wake subscription's health check (subscriberPingMs, 5 s: at most one per 5 s); no
    // other client command (no resubscribe).
    expect(fromClients.map(([name]) => name).sort()).to.deep.equal(["evalsha_ro", "ping"]);
    expect(stats.evalsha_ro).to.equal(pollsDuring);
    expect(stats.ping)
      .to.be.at.least(1)
      .and.at.most(Math.ceil(WINDOW_MS / 5000) + 1);
    const course = log.outline(settled).map((event) => (event === "look null" ? "look" : event));
    expect(course).to.deep.equal(Array(pollsDuring).fill(["look", "sleep 30000"]).flat());
    expect(new Set(log.sleeps())).to.deep.equal(new Set([30_000]));
  });
});
