/**
 * A Sentinel failover under load, on a real set-up (test/support/sentinel.ts): producers send
 * numbered messages through RedisSMQ instances on Sentinel-managed ioredis clients, Workers
 * (concurrency 4) consume them, and the primary is SIGKILLed (then, on the same set-up, moved by a
 * manual SENTINEL FAILOVER) mid-run. With `waitForReplicas: 1` no acknowledged send may be lost;
 * every acknowledged send is handled at least once (duplicates are allowed and counted); the
 * Workers carry on without a restart; an idle Worker with a 60 s cap is woken after the failover
 * by a realtime send from another process; a burst of sends held during the outage meets a
 * promoted replica without the scripts (NOSCRIPT) and succeeds. Without `waitForReplicas`, the
 * acknowledged sends lost are measured, not asserted. Each case prints its figures. The two
 * failovers run with ioredis 5 clients and with ioredis 6 ones (RESP3: the idle Worker's wake
 * subscription is on the consumer's own connection, which follows the primary too).
 */
import { expect } from "chai";
import RedisSMQ = require("../../../lib");
import { startSentinelSetup, TILT_TIMEOUT_MS } from "../../support/sentinel";
import { MAX_RETRY_MS } from "../../../lib/worker/sleep-policy";
import type { SentinelSetup, SentinelSetupNode } from "../../support/sentinel";
import { SentinelLoad, errorCounts, sentinelClient } from "../../support/sentinel-load";
import type { SentinelIoredis, Stream } from "../../support/sentinel-load";
import { uniqueNs } from "../../support/server";
import { WorkerLog, sendFromChild, waitFor } from "../../support/worker";
import { runsOn } from "../../support/targets";

runsOn("single");

const { Worker } = RedisSMQ;

/** How many sends are made at once while the client is down, to meet the promoted replica's NOSCRIPT together. */
const BURST = 300;

/**
 * How long replicated sends may take to resume after the failover: each needs a replica's
 * acknowledgement, so the sentinels must first point the remaining replica at the new primary,
 * which a sentinel in TILT mode (after a stall on a loaded machine) holds off for up to
 * TILT_TIMEOUT_MS; then a stream makes 100 sends in well under 20 s.
 */
const SENDS_RESUME_WITHIN_MS = TILT_TIMEOUT_MS + 20_000;

/**
 * How long an acknowledged send may wait to be handled once sends resumed: a Worker that failed
 * through the outage backs off up to MAX_RETRY_MS (a steady stream publishes no wake to cut it
 * short), and a message whose receive reply the outage cut reappears after the queue's vt (3 s).
 */
const HANDLED_WITHIN_MS = MAX_RETRY_MS + 3_000 + 5_000;

describe("sentinel: failover under load", function () {
  // Each fault may first wait out a sentinel's TILT mode (up to 35 s, see support/sentinel.ts), and
  // the recovery after it may meet another (SENDS_RESUME_WITHIN_MS).
  this.timeout(150_000);
  let setup: SentinelSetup;

  before(async () => {
    setup = await startSentinelSetup();
  });
  after(async () => {
    await setup?.close();
  });

  /** A Worker on an idle queue with a 60 s cap, asleep and subscribed for realtime wakes on the primary. */
  async function sleeper(load: SentinelLoad, consumer: RedisSMQ) {
    await consumer.createQueueAsync({ qname: "idle" });
    const handled: string[] = [];
    const worker = new Worker(consumer, {
      qname: "idle",
      maxIdleSleepMs: 60_000,
      stopTimeoutMs: 1_000,
      handler: (message) => void handled.push(message.message),
    });
    worker.on("error", (error) => load.errors.push(error));
    const log = new WorkerLog(worker);
    worker.start();
    await waitForSubscriber(await setup.primary(), `${load.ns}:rt:idle`);
    await waitFor(() => log.asleep, "the idle Worker asleep");
    return { worker, log, handled };
  }

  async function waitForSubscriber(node: SentinelSetupNode, channel: string): Promise<void> {
    await waitFor(
      async () => ((await setup.run(node, ["PUBSUB", "NUMSUB", channel]).catch(() => [])) as unknown[])[1] === 1,
      `the realtime subscription on ${node.port}`,
      15_000,
    );
  }

  /** NOSCRIPT replies and EVAL calls (EVAL_RO for the reads) the node has answered since its start. */
  async function scriptStats(node: SentinelSetupNode): Promise<{ noscript: number; eval: number }> {
    const errors = String(await setup.run(node, ["INFO", "errorstats"]));
    const commands = String(await setup.run(node, ["INFO", "commandstats"]));
    return {
      noscript: Number(/errorstat_NOSCRIPT:count=(\d+)/.exec(errors)?.[1] ?? 0),
      eval: ["eval", "eval_ro"].reduce((sum, name) => sum + Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(commands)?.[1] ?? 0), 0),
    };
  }

  /**
   * Runs the streams, fails over with `failover` (resolving the new primary) and checks the
   * outcome; returns the streams for case-specific assertions.
   */
  async function underLoad(
    kind: SentinelIoredis,
    label: string,
    streamOptions: Array<{ name: string; waitForReplicas: number; failoverDetector: boolean }>,
    failover: (
      old: SentinelSetupNode,
      outage: () => Promise<void>,
    ) => Promise<{ promoted: SentinelSetupNode; startedAt: number; namedAt: number }>,
  ): Promise<Stream[]> {
    const load = new SentinelLoad(setup, uniqueNs("sn"), kind);
    try {
      const consumer = load.instance(sentinelClient(setup, {}, kind));
      const streams = streamOptions.map((options) => load.stream(options));
      for (const stream of streams) await stream.start(consumer);
      const idle = await sleeper(load, consumer);
      const burster = load.stream({ name: "burst", waitForReplicas: 0, failoverDetector: true });
      await burster.start(consumer, { produce: false });

      await waitFor(() => streams.every((stream) => stream.ledger.sent.size >= 100), "100 sends per stream before the failover");
      const old = await setup.primary();
      let burst: Promise<unknown> = Promise.resolve();
      let readErrors: Error[] = [];
      // Made while the client is down: held, then sent together to a primary that has no scripts.
      const outage = async (): Promise<void> => {
        await waitFor(() => burster.clientStatus !== "ready", "the burst's client to see the primary gone", 5_000);
        burst = Promise.all([burster.burst(BURST), burster.readBurst(BURST).then((errors) => (readErrors = errors))]);
      };
      const { promoted, startedAt, namedAt } = await failover(old, outage);
      const promotedMs = namedAt - startedAt;
      const settledAt = Date.now();
      await burst;

      // Carry on for a while on the new primary, then stop producing and drain.
      await waitFor(
        () => streams.every((stream) => stream.ledger.sentStartedBetween(settledAt, Date.now()) >= 100),
        "100 acknowledged sends per stream after the failover",
        SENDS_RESUME_WITHIN_MS,
      );
      for (const stream of streams) await stream.stopProducing();
      const withReplicas = streams.filter((stream) => stream.options.waitForReplicas > 0);
      await waitFor(
        () => withReplicas.every((stream) => stream.ledger.lost().length === 0),
        "every acknowledged send handled",
        HANDLED_WITHIN_MS,
      );
      await waitFor(
        async () =>
          (await Promise.all([...streams, burster].map((stream) => consumer.getQueueAttributesAsync({ qname: stream.qname })))).every(
            (attributes) => attributes.msgs === 0,
          ),
        "every queue drained",
        20_000,
      );

      // The idle Worker, asleep through the failover, is woken by a realtime send from another process.
      await waitForSubscriber(promoted, `${load.ns}:rt:idle`);
      const wakesBefore = idle.log.named("wake").length;
      const receivesBefore = idle.worker.counters.receives;
      await sendFromChild(
        { host: promoted.host, port: promoted.port, ns: load.ns, password: setup.password },
        ["idle"],
        "after the failover",
      );
      await waitFor(
        () => idle.handled.length === 1,
        "the idle Worker to handle a send made after the failover, well before its 60 s cap",
        10_000,
      );
      const wakes = idle.log
        .named("wake")
        .slice(wakesBefore)
        .map((event) => event.args[0]);
      await idle.worker.stop();
      for (const stream of [...streams, burster]) await stream.stopWorker();

      const scripts = await scriptStats(promoted);
      console.log(
        `      ${kind} ${label}: new primary named after ${promotedMs} ms; on it: ${scripts.noscript} NOSCRIPT replies, ${scripts.eval} EVAL`,
      );
      for (const stream of streams) console.log(`      ${stream.figures(label, startedAt)}`);
      if (label === "kill") console.log(`      ${burster.figures(label, startedAt)}`);
      const errors = [...load.errors, ...streams.flatMap((stream) => [...stream.ledger.sendErrors, ...stream.workerErrors])];
      if (errors.length > 0) console.log(`      errors: ${errorCounts(errors)}`);

      for (const stream of withReplicas)
        expect(stream.ledger.lost(), `${stream.qname}: acknowledged sends never handled`).to.deep.equal([]);
      for (const stream of streams) {
        expect(stream.ledger.bodiesMatch(), stream.qname).to.equal(true);
        // The Worker recovered without a restart: it handled sends made after the failover.
        expect(stream.firstHandledAfter(settledAt), `${stream.qname}: handled after the failover`).to.not.equal(undefined);
      }
      expect(idle.handled).to.deep.equal(["after the failover"]);
      expect(wakes, "woken by the send, not by its timer").to.include("woken");
      expect(idle.worker.counters.receives - receivesBefore).to.be.below(5);
      // NOSCRIPT never surfaces: the runner answers it with EVAL.
      expect(errors.filter((error) => /NOSCRIPT/.test(error.message))).to.deep.equal([]);
      if (label === "kill") {
        expect(burster.ledger.sendErrors).to.deep.equal([]);
        expect(burster.ledger.sent.size).to.equal(BURST);
        // Each held read met NOSCRIPT at once and was answered by EVAL.
        expect(readErrors).to.deep.equal([]);
        expect(scripts.noscript).to.be.at.least(BURST);
      }
      return streams;
    } finally {
      await load.close();
    }
  }

  for (const kind of ["ioredis5", "ioredis6"] as const) {
    it(`${kind}: SIGKILL of the primary: no acknowledged send lost with waitForReplicas: 1; without it, measured`, async () => {
      await underLoad(
        kind,
        "kill",
        [
          { name: "replicated", waitForReplicas: 1, failoverDetector: true },
          { name: "unreplicated", waitForReplicas: 0, failoverDetector: true },
        ],
        async (old, outage) => {
          await setup.killPrimary();
          const startedAt = Date.now();
          await outage();
          const promoted = await setup.waitForNewPrimary(old);
          const namedAt = Date.now();
          // As an operator would: the dead node comes back as a replica, so that WAIT 1 can be met again.
          await setup.restart(old);
          return { promoted, startedAt, namedAt };
        },
      );
    });

    it(`${kind}: manual SENTINEL FAILOVER: no acknowledged send lost with waitForReplicas: 1; clients without failoverDetector measured`, async () => {
      await underLoad(
        kind,
        "failover",
        [
          { name: "replicated", waitForReplicas: 1, failoverDetector: true },
          { name: "unreplicated", waitForReplicas: 0, failoverDetector: true },
          { name: "replicated-nodetector", waitForReplicas: 1, failoverDetector: false },
          { name: "unreplicated-nodetector", waitForReplicas: 0, failoverDetector: false },
        ],
        async (old) => {
          await setup.failover();
          const startedAt = Date.now();
          await setup.waitForNewPrimary(old);
          const namedAt = Date.now();
          // WAIT 1 is met again once the sentinels have made the old primary a replica of the new one
          // (about 10 s: they wait 8 s after it should have become one).
          return { promoted: await setup.waitForNewPrimary(old, { replicaLinked: true, timeoutMs: 30_000 }), startedAt, namedAt };
        },
      );
    });
  }

  it("a client connected straight to a replica (as to an old primary after a failover) gets readOnlyReplica for a write; nothing is written", async () => {
    const primary = await setup.primary();
    const replica = setup.dataNodes.find((node) => node !== primary && node.alive)!;
    const ns = uniqueNs("ro");
    const onPrimary = new RedisSMQ({ host: primary.host, port: primary.port, ns });
    await onPrimary.createQueueAsync({ qname: "q" });
    await waitFor(async () => Number(await setup.run(replica, ["EXISTS", `${ns}:q:Q`])) === 1, "the queue on the replica");
    const onReplica = new RedisSMQ({ host: replica.host, port: replica.port, ns });
    try {
      const error = await onReplica.sendMessageAsync({ qname: "q", message: "lost?" }).then(
        () => undefined,
        (rejected: Error) => rejected,
      );
      expect(error?.name).to.equal("readOnlyReplica");
      expect(error?.message)
        .to.match(/read-only replica/)
        .and.match(/failoverDetector: true/);
      expect((await onPrimary.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);
      // Reads still work there.
      expect((await onReplica.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);
    } finally {
      await onReplica.quitAsync();
      await onPrimary.quitAsync();
    }
  });
});
