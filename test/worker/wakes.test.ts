/**
 * Wakes: a worker asleep with a 60 s cap handles a message long before the cap when it is sent
 * in this process (any RedisSMQ instance), from another process with `realtime: true` (only the
 * pub/sub channel can carry that), or by an rsmq 0.12.4 client with `realtime` (which never touches
 * the in-process hub). Bursts of wakes coalesce. Bounds are generous; latency belongs in bench.
 */
import { expect } from "chai";
import OldRSMQ = require("rsmq");
import RedisSMQ = require("../../lib/index");
import {
  connectionOptions,
  connectionOptionsWith,
  keysOf,
  onPassedClient,
  passedClientKind,
  plainClient,
  singleServerOnly,
  singleServerOptions,
  uniqueNs,
} from "../support/server";
import { serverNowMs } from "../support/inspect";
import {
  Cleanup,
  freshQueue,
  WorkerLog,
  connectionOptionsAs,
  delay,
  onEveryServer,
  sendFromChildProcess,
  serverTimePassed,
  subscribersOf,
  waitFor,
} from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker } = RedisSMQ;
type Worker = RedisSMQ.Worker;

const CAP = 60_000;
const WITHIN = 5_000;

describe("Worker: wakes", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let sender: RedisSMQ;
  let handled: string[];

  beforeEach(async () => {
    ({ ns, rsmq, sender } = await freshQueue(cleanup));
    handled = [];
  });
  afterEach(() => cleanup.run());

  /** A started worker on q with a 60 s cap, resolved once it sleeps (and, if asked, is subscribed). */
  async function sleepingWorker(options: { realtimeWakes?: boolean; concurrency?: number; handlerMs?: number } = {}) {
    const { realtimeWakes = true, concurrency = 1, handlerMs = 0 } = options;
    const worker = cleanup.worker(
      new Worker(rsmq, {
        qname: "q",
        concurrency,
        realtimeWakes,
        maxIdleSleepMs: CAP,
        handler: async (message) => {
          if (handlerMs > 0) await delay(handlerMs);
          handled.push(message.message);
        },
      }),
    );
    const log = new WorkerLog(worker);
    worker.start();
    if (realtimeWakes) {
      const client = await plainClient();
      try {
        await waitFor(async () => (await subscribersOf(client, keysOf(ns, "q").realtimeChannel)) === 1, "the realtime subscription");
      } finally {
        await client.quit();
      }
      // The subscription's own wake makes one more receive; then it sleeps for the cap.
      await waitFor(() => log.asleep && worker.counters.receives >= 2, "the worker asleep");
    } else {
      await waitFor(() => log.asleep, "the worker asleep");
    }
    return { worker, log };
  }

  async function expectHandledSoon(expected: string[], worker: Worker, log: WorkerLog): Promise<void> {
    const started = Date.now();
    // The counter moves after the handler returns and the message is deleted: wait for both.
    await waitFor(
      () => handled.length >= expected.length && worker.counters.handled >= expected.length,
      `${expected.length} handled`,
      WITHIN,
    );
    expect(handled.sort()).to.deep.equal([...expected].sort());
    expect(Date.now() - started).to.be.below(CAP);
    // It was woken, not timed out: every wake so far was "woken".
    expect(log.named("wake").map((event) => event.args[0])).to.include("woken");
    expect(worker.counters.handled).to.equal(expected.length);
  }

  it("wakes for a send by another RedisSMQ instance in this process (no realtime, no subscription)", async () => {
    const { worker, log } = await sleepingWorker({ realtimeWakes: false });
    await sender.sendMessageAsync({ qname: "q", message: "in-process" });
    await expectHandledSoon(["in-process"], worker, log);
  });

  it("wakes for changeMessageVisibility in this process that makes a hidden message due", async () => {
    const other = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    const id = await other.sendMessageAsync({ qname: "q", message: "hidden" });
    await other.receiveMessageAsync({ qname: "q", vt: 3600 }); // in flight for an hour
    const { worker, log } = await sleepingWorker({ realtimeWakes: false });
    expect(await other.changeMessageVisibilityAsync({ qname: "q", id, vt: 0 })).to.equal(1);
    await expectHandledSoon(["hidden"], worker, log);
  });

  it("does not wake for sends to another queue or another namespace", async () => {
    await rsmq.createQueueAsync({ qname: "other" });
    const { worker, log } = await sleepingWorker({ realtimeWakes: false });
    const elsewhere = cleanup.rsmq(new RedisSMQ(connectionOptions(uniqueNs())));
    await elsewhere.createQueueAsync({ qname: "q" });
    const seen = log.events.length;
    await elsewhere.sendMessageAsync({ qname: "q", message: "other ns" });
    await rsmq.sendMessageAsync({ qname: "other", message: "other queue" });
    const receives = worker.counters.receives;
    expect(log.count("wake")).to.equal(0);
    expect(worker.counters.receives).to.equal(receives);
    // Then a send to its own queue, the positive event: its wake comes after any the sends above
    // caused (the same in-process path), so the first wake since then must be this one, with no
    // receive before it, instead of a fixed sleep that proves nothing under load.
    await sender.sendMessageAsync({ qname: "q", message: "own queue" });
    await waitFor(() => handled.includes("own queue"), "the send to its own queue handled");
    const since = log.events.slice(seen).map((event) => event.name);
    expect(since.indexOf("wake"), JSON.stringify(since)).to.equal(0);
    expect(log.named("wake").map((event) => event.args[0])).to.deep.equal(["woken"]);
  });

  it("wakes for a realtime send from another process (pub/sub only)", async function () {
    this.timeout(20_000);
    const { worker, log } = await sleepingWorker();
    await sendFromChildProcess(ns, "q", "from another process");
    await expectHandledSoon(["from another process"], worker, log);
  });

  it("control: without realtimeWakes, a send from another process waits for the cap", async function () {
    this.timeout(20_000);
    const { worker } = await sleepingWorker({ realtimeWakes: false });
    const client = await plainClient();
    cleanup.add(() => client.quit());
    const sentAt = await serverNowMs(client);
    await sendFromChildProcess(ns, "q", "not heard");
    // A second on the server's clock since the send (not a sleep of this process, which a stall
    // shortens in effect), then a round trip on the worker's own connection, after the reply to
    // any receive it had sent.
    await serverTimePassed(client, 1000, sentAt);
    await rsmq.getQueueAttributesAsync({ qname: "q" });
    expect(handled).to.deep.equal([]);
    expect(worker.counters.receives).to.equal(1);
  });

  it("wakes for a send by an rsmq 0.12.4 client with realtime", async function () {
    singleServerOnly(this, "rsmq 0.12.4 cannot use a cluster");
    const { worker, log } = await sleepingWorker();
    const old = new OldRSMQ({ ...singleServerOptions(ns), realtime: true });
    cleanup.add(() => new Promise((resolve) => old.quit(resolve)));
    await old.sendMessageAsync({ qname: "q", message: "from rsmq 0.12.4" });
    await expectHandledSoon(["from rsmq 0.12.4"], worker, log);
  });

  it("shares one subscriber connection per RedisSMQ instance between its workers, closed by quit", async function () {
    singleServerOnly(this, "counts connections with CLIENT LIST on one server");
    const name = `sub-${ns}`;
    const named = new RedisSMQ(connectionOptionsWith(ns, { name }));
    let quit = false;
    cleanup.add(async () => (quit ? undefined : named.quitAsync()));
    await named.createQueueAsync({ qname: "q2" });
    const client = await plainClient();
    cleanup.add(() => client.quit());
    /** Subscriptions per connection of this instance, from CLIENT LIST (the instance's name). */
    const subscriptions = async (): Promise<number[]> => {
      const list = await client.sendCommand<string>(["CLIENT", "LIST"]);
      return list
        .split("\n")
        .filter((line) => line.includes(` name=${name} `))
        .map((line) => Number(/ sub=(\d+)/.exec(line)![1]));
    };
    const one = cleanup.worker(new Worker(named, { qname: "q", maxIdleSleepMs: CAP, handler: () => undefined }));
    const two = cleanup.worker(new Worker(named, { qname: "q2", maxIdleSleepMs: CAP, handler: () => undefined }));
    const three = cleanup.worker(new Worker(named, { qname: "q2", maxIdleSleepMs: CAP, handler: () => undefined }));
    one.start();
    two.start();
    three.start();
    // The one command connection (0 subscriptions: the default one, or the client passed in) and
    // one subscriber with both queues' two channels (wake and realtime); a RESP3 client passed in
    // (node-redis 5/6, ioredis 6) carries the subscription itself: one connection with the four.
    const commands = /^(noderedis.*resp3|ioredis6)$/.test(passedClientKind() ?? "") ? [] : [0];
    await waitFor(async () => (await subscriptions()).sort().join() === [...commands, 4].join(), "one subscriber with four channels");
    await two.stop();
    expect((await subscriptions()).sort()).to.deep.equal([...commands, 4]); // q2 still has a worker
    await three.stop();
    expect((await subscriptions()).sort()).to.deep.equal([...commands, 2]);
    await one.stop();
    expect((await subscriptions()).sort()).to.deep.equal([...commands, 0]);
    await named.quitAsync();
    quit = true;
    // A client passed in stays open, its subscriptions taken off: only a subscriber copy closes.
    const left = onPassedClient() ? [0] : [];
    await waitFor(async () => (await subscriptions()).join() === left.join(), "the instance's own connections closed");
  });

  it("reports a refused SUBSCRIBE as `error`, and a later worker on that channel subscribes again", async function () {
    // A user allowed every command and key but no channel: SUBSCRIBE (SSUBSCRIBE on a cluster)
    // answers NOPERM. ACL users live on each server: on a cluster, on every node.
    const user = `worker-${ns}`;
    const admin = await plainClient();
    await onEveryServer(["ACL", "SETUSER", user, "on", ">secret", "~*", "&*", "+@all", "resetchannels"]);
    const limited = new RedisSMQ(connectionOptionsAs(ns, user, "secret"));
    limited.on("error", () => undefined);
    // The instance quits before its user goes (DELUSER drops the user's connections).
    cleanup.add(async () => {
      await limited.quitAsync();
      await onEveryServer(["ACL", "DELUSER", user]);
      await admin.quit();
    });

    const first = cleanup.worker(new Worker(limited, { qname: "q", maxIdleSleepMs: CAP, handler: () => undefined }));
    const errors: Error[] = [];
    first.on("error", (error) => errors.push(error));
    first.start();
    await waitFor(() => errors.length > 0, "the refused subscription reported");
    expect(errors[0].message).to.match(/NOPERM/);
    await first.stop();

    // Channels allowed now: a new worker on the same instance and queue must get its wakes.
    await onEveryServer(["ACL", "SETUSER", user, "allchannels"]);
    const second = cleanup.worker(new Worker(limited, { qname: "q", maxIdleSleepMs: CAP, handler: () => undefined }));
    second.on("error", (error) => errors.push(error));
    second.start();
    await waitFor(
      async () => (await subscribersOf(admin, keysOf(ns, "q").realtimeChannel)) === 1,
      "the second worker's subscription",
      5000,
    );
  });

  it("coalesces a burst of wakes: far fewer receives than sends", async () => {
    const { worker, log } = await sleepingWorker({ realtimeWakes: false, concurrency: 50, handlerMs: 20 });
    const receivesBefore = worker.counters.receives;
    const messages = Array.from({ length: 50 }, (_, i) => `m${i}`);
    await Promise.all(messages.map((message) => sender.sendMessageAsync({ qname: "q", message })));
    await expectHandledSoon(messages, worker, log);
    const receives = worker.counters.receives - receivesBefore;
    expect(receives, `${receives} receives for 50 sends`).to.be.below(25);
  });
});
