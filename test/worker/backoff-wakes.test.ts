/**
 * Wakes during an error back-off, against a real Redis: a worker started on a queue that does not
 * exist backs off 100 ms doubling; once it is in a back-off of seconds, the queue is created and a
 * message sent, from this process or by an rsmq 0.12.4 client with `realtime`, and the worker
 * handles it without waiting out the back-off. Told by the order of its events (the back-off's
 * sleep ends with `wake`, the next receive takes the message), not by a clock.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { openOldRsmq } from "../support/old-rsmq";
import { connectionOptions, keysOf, plainClient, singleServerOnly, uniqueNs } from "../support/server";
import { Cleanup, WorkerLog, subscribersOf, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;

/** A back-off long enough that the test's own calls fit in it many times over, reached in 3.1 s. */
const LONG_BACK_OFF = 3200;

describe("Worker: wakes during an error back-off", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let sender: RedisSMQ;

  beforeEach(() => {
    ns = uniqueNs();
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    sender = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
  });
  afterEach(() => cleanup.run());

  /** A worker on the missing queue "late", resolved once it has just begun a back-off of LONG_BACK_OFF ms. */
  async function backingOff(realtimeWakes: boolean): Promise<{ worker: RedisSMQ.Worker; log: WorkerLog; handled: string[] }> {
    const handled: string[] = [];
    const worker = cleanup.worker(
      new Worker(rsmq, { qname: "late", maxIdleSleepMs: 60_000, realtimeWakes, handler: (message) => void handled.push(message.message) }),
    );
    const log = new WorkerLog(worker);
    worker.on("error", () => undefined);
    worker.start();
    if (realtimeWakes) {
      const client = await plainClient();
      try {
        await waitFor(async () => (await subscribersOf(client, keysOf(ns, "late").realtimeChannel)) === 1, "the realtime subscription");
      } finally {
        await client.quit();
      }
    }
    await waitFor(() => log.asleep && log.sleeps().at(-1) === LONG_BACK_OFF, `a back-off of ${LONG_BACK_OFF} ms`, 10_000);
    expect(log.named("error").every((event) => (event.args[0] as Error).name === "queueNotFound")).to.equal(true);
    expect(worker.counters.receives).to.equal(0);
    return { worker, log, handled };
  }

  /** The events from the back-off's sleep on, up to the receive that took the message. */
  function fromBackOff(log: WorkerLog): string[] {
    const backOff = log.events.findIndex((event) => event.name === "sleep" && event.args[0] === LONG_BACK_OFF);
    const course = log.outline(backOff);
    return course.slice(0, course.findIndex((line) => line.startsWith("receive 1")) + 1);
  }

  it("a queue created and sent to in this process: the send ends the back-off", async () => {
    const { log, handled } = await backingOff(false);
    await sender.createQueueAsync({ qname: "late" });
    await sender.sendMessageAsync({ qname: "late", message: "from this process" });
    await waitFor(() => handled.length === 1, "the message handled", 20_000);
    expect(fromBackOff(log)).to.deep.equal([`sleep ${LONG_BACK_OFF}`, "wake woken", "receive 1 undefined"]);
  });

  it("a queue created and sent to by rsmq 0.12.4 with realtime: the publish ends the back-off", async function () {
    singleServerOnly(this, "rsmq 0.12.4 cannot use a cluster");
    const { log, handled } = await backingOff(true);
    const old = openOldRsmq(ns, { realtime: true });
    cleanup.add(() => old.quitAsync());
    await old.createQueueAsync({ qname: "late" });
    await old.sendMessageAsync({ qname: "late", message: "from rsmq 0.12.4" });
    await waitFor(() => handled.length === 1, "the message handled", 20_000);
    expect(fromBackOff(log)).to.deep.equal([`sleep ${LONG_BACK_OFF}`, "wake woken", "receive 1 undefined"]);
  });
});
