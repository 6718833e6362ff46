/**
 * How a Worker acknowledges: a handled message's delete rides on the Worker's next receive, one
 * deleteAndReceive script call for both, so a steady stream costs one command per message at
 * concurrency 1 (counted exactly from MONITOR) and a bounded number at 50; a stop still waits for
 * the deletes held. The crash between a handler's end and that call: ack-crash.test.ts.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { keysOf, plainClient } from "../support/server";
import { clientCommands, monitor } from "../support/wire";
import { freshQueueEachTest, loadPollScripts, waitFor, WorkerLog } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;

describe("Worker: acknowledgement rides on the next receive", () => {
  const fresh = freshQueueEachTest();
  const { cleanup } = fresh;

  async function sendMany(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let left = count; left > 0; left -= 100) {
      const messages = Array.from({ length: Math.min(100, left) }, () => ({ message: "m" }));
      ids.push(...(await fresh.sender.sendMessagesAsync({ qname: "q", messages })).map((entry) => String(entry.id)));
    }
    return ids;
  }

  async function expectQueueEmpty(ids: string[]): Promise<void> {
    const client = await plainClient();
    cleanup.add(() => client.quit());
    const { messages, hash } = keysOf(fresh.ns, "q");
    expect(await client.zCard(messages)).to.equal(0);
    const fields = ids.flatMap((id) => [id, `${id}:rc`, `${id}:fr`]);
    expect(await client.hmGet(hash, fields)).to.deep.equal(fields.map(() => null));
  }

  it("concurrency 1, a steady stream: exactly one command per message (the first receive, then one deleteAndReceive each)", async () => {
    const ids = await sendMany(20);
    await loadPollScripts(fresh.ns, "q");
    const handled: string[] = [];
    const worker = cleanup.worker(
      new Worker(fresh.rsmq, {
        qname: "q",
        realtimeWakes: false,
        maxIdleSleepMs: 60_000,
        handler: (message) => void handled.push(message.id),
      }),
    );
    const log = new WorkerLog(worker);
    const commands = await monitor(async () => {
      worker.start();
      await waitFor(() => worker.counters.handled === 20 && log.asleep, "the twenty handled and the worker asleep");
    });

    expect(handled).to.deep.equal(ids);
    // Before the first receive, the read of the queue's schedules (read-only; there are none). The
    // first receive carries no delete; each later one carries the previous message's, and the
    // last, which finds the queue empty, carries the twentieth's.
    expect(clientCommands(commands)).to.deep.equal(["evalsha_ro", ...Array.from({ length: 21 }, () => "evalsha")]);
    expect(worker.counters).to.deep.include({ receives: 21, emptyReceives: 1, handled: 20, errors: 0 });
    await expectQueueEmpty(ids);
  });

  it("concurrency 50: 400 messages in a bounded number of commands, each handled and deleted once", async () => {
    const ids = await sendMany(400);
    await loadPollScripts(fresh.ns, "q");
    const handled: string[] = [];
    const worker = cleanup.worker(
      new Worker(fresh.rsmq, {
        qname: "q",
        concurrency: 50,
        realtimeWakes: false,
        maxIdleSleepMs: 60_000,
        handler: async (message) => void handled.push(message.id),
      }),
    );
    const log = new WorkerLog(worker);
    const commands = await monitor(async () => {
      worker.start();
      await waitFor(() => worker.counters.handled === 400 && log.asleep, "the 400 handled and the worker asleep");
    });

    expect([...handled].sort()).to.deep.equal([...ids].sort());
    // Before the first receive, the read of the queue's schedules (read-only; there are none).
    const [scheduleRead, ...sent] = clientCommands(commands);
    expect(scheduleRead).to.equal("evalsha_ro");
    expect(
      sent.every((name) => name === "evalsha"),
      JSON.stringify(sent),
    ).to.equal(true);
    // Each command is a receive, none a delete of its own: the deletes all rode along.
    expect(sent.length).to.equal(worker.counters.receives);
    // Eight full batches and the empty receive that carries the last deletes when the handlers of
    // a batch end together; up to twice that when they straggle.
    expect(sent.length).to.be.within(400 / 50 + 1, 2 * (400 / 50) + 1);
    await expectQueueEmpty(ids);
  });

  it("a stop waits for the deletes held for a receive that never comes", async () => {
    const ids = await sendMany(3);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const worker = cleanup.worker(
      new Worker(fresh.rsmq, { qname: "q", concurrency: 3, realtimeWakes: false, maxIdleSleepMs: 60_000, handler: () => gate }),
    );
    worker.start();
    await waitFor(() => worker.counters.receives >= 1, "the batch received");
    const stopped = worker.stop();
    release();
    await stopped;
    expect(worker.counters).to.deep.include({ handled: 3, abandoned: 0 });
    await expectQueueEmpty(ids);
  });
});
