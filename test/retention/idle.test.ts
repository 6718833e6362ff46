/**
 * The Worker's idle look sweeps its queue without raising its idle cost (docs/retention.md): on a
 * queue with a retention and expired messages that are hidden (no receive meets them), the look
 * says a sweep is wanted and the next looks are sweep chunks, one per tick; each tick is still one
 * script call plus at most one PING, and the expired messages go. The Worker's heartbeat rides in
 * its looks; a chunk cannot carry it, so while a pass runs the beat goes beside the chunk (one call
 * more per chunk), and the stop removes the entry. Counted from the server's INFO commandstats
 * over the Worker's whole life, with a real cap.
 */
import { expect } from "chai";
import { createClient } from "redis";
import RedisSMQ = require("../../lib/index");
import { script } from "../../lib/scripts/script-files";
import { keysOf, onCluster, plainClient } from "../support/server";
import { clientsNow, commandStatsDuring } from "../support/wire";
import { Cleanup, freshQueue, loadPollScripts, queueServer, WorkerLog, waitFor } from "../support/worker";
import { plantMessages, setRetention } from "../support/retention";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

const { Worker } = RedisSMQ;

describe("Retention: the Worker's idle sweep", () => {
  const cleanup = new Cleanup();
  afterEach(() => cleanup.run());

  it("sweeps hidden expired messages at one script call and at most one PING per cap", async function () {
    this.timeout(30_000);
    const others = await clientsNow();
    const { ns, rsmq } = await freshQueue(cleanup);
    const client = await plainClient();
    try {
      await setRetention(client, ns, "q", 60);
      // 250 expired and hidden (in flight for ten minutes): three chunks of 100.
      await plantMessages(client, ns, "q", { count: 250, ageSeconds: 120, dueInMs: 600_000 });
      const [live] = await plantMessages(client, ns, "q", { count: 1, ageSeconds: 1, dueInMs: 600_000, prefix: "live" });
      await loadPollScripts(ns, "q");
      const { host, port } = await queueServer(ns, "q");
      const loader = createClient({ url: `redis://${host}:${port}` });
      await loader.connect();
      for (const body of [script("sweepExpired"), script("sweepExpired").flagged])
        await loader.sendCommand(["SCRIPT", "LOAD", body.source]);
      await loader.quit();

      const cap = 1000;
      const worker = cleanup.worker(new Worker(rsmq, { qname: "q", handler: () => undefined, maxIdleSleepMs: cap }));
      const log = new WorkerLog(worker);
      const messages = keysOf(ns, "q").messages;
      const stats = await commandStatsDuring(
        async () => {
          worker.start();
          await waitFor(async () => (await client.zCard(messages)) === 1, "the sweep", 25_000);
          const looks = worker.counters.looks;
          await waitFor(() => worker.counters.looks > looks && log.asleep, "one more look");
          await worker.stop();
        },
        { others },
      );
      const { receives, looks, sleeps } = worker.counters;
      expect(await client.zRange(messages, 0, -1)).to.deep.equal([live.id]);
      expect(await client.hGet(keysOf(ns, "q").hash, "totalexpired")).to.equal("250");
      // Every poll is one script call: a receive or a chunk (EVALSHA), or a look (EVALSHA_RO, or
      // EVALSHA with the heartbeat); besides, a beat beside each of the three chunks (every tick is
      // a beat's half cap after the last), the removal of its entry at stop, and the read of the
      // queue's schedules at start (read-only).
      const beats = 3;
      const scheduleReads = 1;
      expect((stats.evalsha ?? 0) + (stats.evalsha_ro ?? 0), JSON.stringify(stats)).to.equal(receives + looks + beats + 1 + scheduleReads);
      // A look that said "sweep", then three chunks, then a look: the chunks are no read-only looks.
      expect(stats.evalsha_ro ?? 0, JSON.stringify(stats)).to.be.at.most(looks - 3 + scheduleReads);
      expect(stats.eval ?? 0).to.equal(0);
      const ping = stats.ping ?? 0;
      if (onCluster()) expect(ping).to.equal(0);
      else expect(ping).to.be.at.most(looks);
      // And each poll was followed by a sleep of the full cap: one tick per cap, at most two commands in it.
      expect(new Set(log.sleeps())).to.deep.equal(new Set([cap]));
      expect(sleeps).to.be.at.least(looks);
    } finally {
      await client.quit();
    }
  });
});
