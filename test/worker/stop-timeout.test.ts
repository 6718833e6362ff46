/**
 * A handler that outlives stopTimeoutMs, against a real Redis: stop() resolves without it, and
 * when it ends later the stopped worker does nothing with its message (no delete, no retry, no
 * dead-lettering: MONITOR sees no command naming the message after `stopped`), tells no `handled`,
 * `failed` or `error` (and shows no process warning), and reports it once as `abandoned`. The
 * message reappears after its visibility timeout, as docs/worker.md promises; this holds after
 * the doc's own `await worker.stop(); await rsmq.quitAsync()` too.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { MonitorWatch } from "../support/monitor-socket";
import { Cleanup, WorkerLog, deferred, freshQueue, queueServer, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker, PoisonError } = RedisSMQ;
type QueueMessage = RedisSMQ.QueueMessage;

describe("Worker: a handler that outlives stopTimeoutMs", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let sender: RedisSMQ;
  let watch: MonitorWatch;

  beforeEach(async () => {
    ({ ns, rsmq, sender } = await freshQueue(cleanup));
    watch = await MonitorWatch.open([await queueServer(ns, "q")]);
    cleanup.add(() => watch.close());
  });
  afterEach(() => cleanup.run());

  /** A worker on q (vt 1 s, stopTimeoutMs 200) whose handler ends only when the test says; resolved once it holds a message. */
  async function holdingAMessage(): Promise<{
    worker: RedisSMQ.Worker;
    id: string;
    release: ReturnType<typeof deferred<Error | undefined>>;
  }> {
    const release = deferred<Error | undefined>();
    const worker = cleanup.worker(
      new Worker(rsmq, {
        qname: "q",
        vt: 1,
        stopTimeoutMs: 200,
        maxIdleSleepMs: 60_000,
        handler: async () => {
          const error = await release.promise;
          if (error) throw error;
        },
      }),
    );
    worker.start();
    const id = await sender.sendMessageAsync({ qname: "q", message: "stuck" });
    await waitFor(() => worker.counters.receives > worker.counters.emptyReceives, "the message taken");
    return { worker, id, release };
  }

  /** Commands clients sent (not a script's own calls), from the `from`-th MONITOR saw on, that name the message. */
  async function commandsNaming(id: string, from: number): Promise<string[][]> {
    return (await watch.commands())
      .slice(from)
      .filter(({ args, fromScript }) => !fromScript && args.some((arg) => arg.includes(id)))
      .map(({ args }) => args);
  }

  /** Receives the message again once its visibility timeout ends (the test's own receive names no id). */
  async function reappears(id: string): Promise<QueueMessage> {
    let again: QueueMessage | undefined;
    await waitFor(
      async () => {
        const received = await sender.receiveMessageAsync({ qname: "q", vt: 30 });
        if ("id" in received) again = received;
        return again !== undefined;
      },
      "the message to reappear after its visibility timeout",
      10_000,
    );
    expect(again!.id).to.equal(id);
    return again!;
  }

  it("resolving after `stopped` (and after quitAsync): no delete, no `handled` or `error`, one `abandoned`; the message reappears", async () => {
    const { worker, id, release } = await holdingAMessage();
    const log = new WorkerLog(worker);
    await worker.stop();
    await rsmq.quitAsync();
    const mark = (await watch.commands()).length;
    const seen = log.events.length;

    release.resolve(undefined);
    await waitFor(() => log.events.length > seen, "an event about the late handler");
    const again = await reappears(id);
    expect(again.rc).to.equal(2);

    expect(log.outline(seen)).to.deep.equal(["abandoned"]);
    const [message, info] = log.named("abandoned")[0].args as [QueueMessage, unknown];
    expect(message.id).to.equal(id);
    const resolved: RedisSMQ.AbandonedOutcome = { outcome: "resolved" };
    expect(info).to.deep.equal(resolved);
    expect(worker.counters).to.deep.include({ handled: 0, abandoned: 1, errors: 0 });
    expect(await commandsNaming(id, mark)).to.deep.equal([]);
  });

  it("throwing after `stopped`: no retry and no dead letter, no `failed`, one `abandoned` with the error", async () => {
    const { worker, id, release } = await holdingAMessage();
    const log = new WorkerLog(worker);
    await worker.stop();
    const mark = (await watch.commands()).length;
    const seen = log.events.length;

    const poison = new PoisonError("gave up late");
    release.resolve(poison);
    await waitFor(() => log.events.length > seen, "an event about the late handler");
    expect((await reappears(id)).rc).to.equal(2);

    expect(log.outline(seen)).to.deep.equal(["abandoned"]);
    expect(log.named("abandoned")[0].args[1]).to.deep.equal({ outcome: "threw", error: poison });
    expect(worker.counters).to.deep.include({ failed: 0, deadLettered: 0, abandoned: 1, errors: 0 });
    expect(await commandsNaming(id, mark)).to.deep.equal([]);
    expect(await sender.listQueuesAsync()).to.deep.equal(["q"]);
  });

  it("with no `error` listener, resolving after stop() and quitAsync() shows no process warning", async () => {
    const { worker, release } = await holdingAMessage();
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on("warning", onWarning);
    cleanup.add(async () => void process.off("warning", onWarning));
    let abandoned = false;
    worker.once("abandoned", () => (abandoned = true));
    await worker.stop();
    await rsmq.quitAsync();

    release.resolve(undefined);
    await waitFor(() => abandoned || warnings.length > 0, "the `abandoned` report or a warning");
    // Warnings are emitted on the next tick: give any a few turns to arrive.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((warning) => warning.message)).to.deep.equal([]);
    expect(worker.counters).to.deep.include({ abandoned: 1, errors: 0 });
  });
});
