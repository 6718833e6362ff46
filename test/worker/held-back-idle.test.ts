/**
 * The idle promise holds for a Worker held back: paused, or rate-limited with messages waiting,
 * it makes one poll (one script call: EVALSHA for a receive, EVALSHA_RO for a look, counted
 * exactly from INFO commandstats) per sleep of the full cap, and each poll says why it was held
 * back. A limited poll spends nothing: the one message the limit let through is the only one taken.
 * Its looks carry its heartbeat; the one call more over its life is the removal of its entry at stop.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import type { ReceiveBlock } from "../../lib/operations/receive-block";
import type { OtherClients } from "../support/quiet-server";
import { clientsNow, commandStatsDuring } from "../support/wire";
import { Cleanup, freshQueue, loadPollScripts, WorkerLog, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;
const CAP = 200;
const POLLS = 5;
/** The stop's one script call: the worker's heartbeat entry removed from the queue's consumers. */
const STOP_CALLS = 1;
/** The start's read of the queue's schedules (none here), before its first receive. */
const SCHEDULE_READS = 1;

describe("Worker: idle cost while held back", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let sender: RedisSMQ;
  let others: OtherClients;

  beforeEach(async () => {
    others = await clientsNow();
    ({ ns, rsmq, sender } = await freshQueue(cleanup));
  });
  afterEach(() => cleanup.run());

  /** A worker on q with the cap, from start to stop, with the server's script calls over its whole life. */
  async function heldWorker() {
    await loadPollScripts(ns, "q");
    const worker = cleanup.worker(new Worker(rsmq, { qname: "q", handler: () => undefined, maxIdleSleepMs: CAP, realtimeWakes: false }));
    const log = new WorkerLog(worker);
    const blocks: ReceiveBlock[] = [];
    worker.on("heldBack", (block) => void blocks.push(block));
    const stats = await commandStatsDuring(
      async () => {
        worker.start();
        await waitFor(() => blocks.length >= POLLS && log.asleep, `${POLLS} polls held back`);
        await worker.stop();
      },
      { others },
    );
    return { stats, log, blocks, counters: worker.counters };
  }

  it("paused: one script call per sleep of the full cap, each held back by the pause; nothing taken", async () => {
    await sender.sendMessageAsync({ qname: "q", message: "waits for the resume" });
    await rsmq.pauseQueueAsync({ qname: "q" });
    const { stats, log, blocks, counters } = await heldWorker();
    expect(new Set(blocks.map((block) => block.reason))).to.deep.equal(new Set(["paused"]));
    expect(counters).to.deep.include({ handled: 0, heldBack: counters.receives + counters.looks });
    // Every sleep was the full cap, one per poll.
    expect(new Set(log.sleeps())).to.deep.equal(new Set([CAP]));
    expect(counters.sleeps).to.equal(counters.receives + counters.looks);
    expect(counters.receives).to.equal(1);
    expect((stats.evalsha ?? 0) + (stats.evalsha_ro ?? 0), JSON.stringify(stats)).to.equal(
      counters.receives + counters.looks + STOP_CALLS + SCHEDULE_READS,
    );
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).totalrecv).to.equal(0);
  });

  it("rate-limited with messages waiting: one script call per sleep of the cap, and only the one message the limit allows is taken", async () => {
    await rsmq.setRateLimitAsync({ qname: "q", limits: [{ max: 1, perMs: 3_600_000 }] });
    await sender.sendMessagesAsync({ qname: "q", messages: [{ message: "a" }, { message: "b" }, { message: "c" }] });
    const { stats, log, blocks, counters } = await heldWorker();
    expect(new Set(blocks.map((block) => block.reason))).to.deep.equal(new Set(["limited"]));
    expect(counters.handled).to.equal(1);
    expect(new Set(log.sleeps())).to.deep.equal(new Set([CAP]));
    // One call per poll: the handled message's delete rode on the receive after it (a full batch of one).
    const polls = counters.receives + counters.looks;
    expect(counters.receives).to.equal(2);
    expect((stats.evalsha ?? 0) + (stats.evalsha_ro ?? 0), JSON.stringify(stats)).to.equal(polls + STOP_CALLS + SCHEDULE_READS);
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).totalrecv).to.equal(1);
  });
});
