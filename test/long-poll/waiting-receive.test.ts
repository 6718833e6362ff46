/**
 * A receive that waits (`waitMs`): it resolves as soon as a message is due (a send from this
 * process, a realtime send from another, a delayed message's due time, or the final look at the
 * end for a producer that publishes nothing), with the usual empty answer when the wait ends;
 * `signal` and quitAsync() end it; many waiting calls share one subscription and do not spin.
 * The waits that must be cut short are the longest allowed (60 s): if the wake failed, the test
 * would time out, not pass.
 */
import { setMaxListeners } from "events";
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { openOldRsmq, rejectionOf } from "../support/old-rsmq";
import { keysOf, onCluster, plainClient } from "../support/server";
import { commandStatsDuring, clientCommands, monitor } from "../support/wire";
import { Cleanup, freshQueue, loadPollScripts, sendFromChildProcess, subscribersOf, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

type QueueMessage = RedisSMQ.QueueMessage;
const MAX = 60_000;

describe("long polling: receive with waitMs", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let sender: RedisSMQ;

  beforeEach(async () => {
    ({ ns, rsmq, sender } = await freshQueue(cleanup));
  });
  afterEach(() => cleanup.run());

  /** Counts the receive scripts the server ran while `action` ran (the scripts loaded first, so no EVAL). */
  async function looksDuring(action: () => Promise<unknown>): Promise<Record<string, number>> {
    await loadPollScripts(ns, "q");
    return commandStatsDuring(action);
  }

  it("resolves on a send from this process", async () => {
    const waiting = rsmq.receiveMessageAsync({ qname: "q", waitMs: MAX });
    await waitFor(() => subscribed(), "the waiting call's subscription");
    const id = await sender.sendMessageAsync({ qname: "q", message: "hello" });
    const got = (await waiting) as QueueMessage;
    expect(got.id).to.equal(id);
    expect(got.message).to.equal("hello");
  });

  it("resolves on a realtime send from another process", async () => {
    const waiting = rsmq.receiveMessageAsync({ qname: "q", waitMs: MAX });
    await waitFor(() => subscribed(), "the waiting call's subscription");
    const id = await sendFromChildProcess(ns, "q", "from afar");
    expect(((await waiting) as QueueMessage).id).to.equal(id);
  });

  it("resolves at a delayed message's due time, with one look for the due time", async () => {
    const id = await sender.sendMessageAsync({ qname: "q", message: "later", delay: 1 });
    let got: QueueMessage | {} = {};
    const stats = await looksDuring(async () => {
      got = await rsmq.receiveMessageAsync({ qname: "q", waitMs: MAX });
    });
    expect((got as QueueMessage).id).to.equal(id);
    // The first look (nothing due, due in ~1 s), the look after the new subscription, the look at the due time.
    expect(stats.evalsha, JSON.stringify(stats)).to.equal(3);
  });

  it("ends empty: {} and { messages: [], nextDueMs }, after exactly 2 looks (3 for a channel not heard yet)", async () => {
    let first: unknown;
    let second: unknown;
    const firstStats = await looksDuring(async () => {
      first = await rsmq.receiveMessageAsync({ qname: "q", waitMs: 1000 });
    });
    // Called again within the subscription's linger (1 s): it is still heard.
    const secondStats = await looksDuring(async () => {
      second = await rsmq.receiveMessagesAsync({ qname: "q", count: 10, waitMs: 1000 });
    });
    expect(first).to.deep.equal({});
    expect(second).to.deep.equal({ messages: [], nextDueMs: null });
    expect(firstStats.evalsha, JSON.stringify(firstStats)).to.equal(3);
    expect(secondStats.evalsha, JSON.stringify(secondStats)).to.equal(2);
    const subscribe = onCluster() ? "ssubscribe" : "subscribe";
    // The queue's wake channel and its realtime channel.
    expect(firstStats[subscribe] ?? 0, JSON.stringify(firstStats)).to.equal(2);
    expect(secondStats[subscribe] ?? 0, JSON.stringify(secondStats)).to.equal(0);
    // Released after the linger once no call needs it.
    await waitFor(async () => !(await subscribed()), "the subscription's release");
  });

  it("the final look gets a message from a producer that publishes nothing (rsmq 0.12.4, realtime off)", async function () {
    if (onCluster()) this.skip(); // rsmq 0.12.4 knows no cluster
    const old = openOldRsmq(ns);
    cleanup.add(() => old.quitAsync());
    const waiting = rsmq.receiveMessageAsync({ qname: "q", waitMs: 1500 });
    await waitFor(() => subscribed(), "the waiting call's subscription");
    const id = await old.sendMessageAsync({ qname: "q", message: "quiet" });
    expect(((await waiting) as QueueMessage).id).to.equal(id);
  });

  it("receiveMessagesAsync and receiveMessageOrNextDueAsync wait too", async () => {
    const batch = rsmq.receiveMessagesAsync({ qname: "q", count: 5, waitMs: MAX });
    await waitFor(() => subscribed(), "the subscription");
    const a = await sender.sendMessageAsync({ qname: "q", message: "a" });
    expect((await batch).messages.map((message) => message.id)).to.deep.equal([a]);

    const single = rsmq.receiveMessageOrNextDueAsync({ qname: "q", waitMs: MAX });
    const b = await sender.sendMessageAsync({ qname: "q", message: "b" });
    const one = await single;
    expect(one.status === "received" && one.message.id).to.equal(b);
  });

  it("the callback twin waits too", async () => {
    const waiting = new Promise<QueueMessage | {}>((resolve, reject) =>
      rsmq.receiveMessage({ qname: "q", waitMs: MAX }, (error, got) => (error ? reject(error) : resolve(got))),
    );
    await waitFor(() => subscribed(), "the subscription");
    const id = await sender.sendMessageAsync({ qname: "q", message: "called back" });
    expect(await waiting).to.include({ id, message: "called back" });
  });

  it("an abort rejects with the signal's reason; an aborted signal rejects with no command sent", async () => {
    const controller = new AbortController();
    const waiting = rsmq.receiveMessageAsync({ qname: "q", waitMs: MAX, signal: controller.signal });
    await waitFor(() => subscribed(), "the subscription");
    const reason = new Error("enough");
    controller.abort(reason);
    expect(await rejectionOf(waiting)).to.equal(reason);

    const commands = await monitor(async () => {
      const error = await rejectionOf(rsmq.receiveMessageAsync({ qname: "q", waitMs: 10, signal: controller.signal }));
      expect(error).to.equal(reason);
      const plain = await rejectionOf(rsmq.receiveMessagesAsync({ qname: "q", count: 2, signal: AbortSignal.abort() }));
      expect(plain.name).to.equal("AbortError");
    });
    expect(clientCommands(commands).filter((name) => /eval/i.test(name))).to.deep.equal([]);
  });

  it("a look in flight when aborted finishes, and its message is not lost", async () => {
    const id = await sender.sendMessageAsync({ qname: "q", message: "mine" });
    const controller = new AbortController();
    const receiving = rsmq.receiveMessageAsync({ qname: "q", waitMs: MAX, signal: controller.signal });
    controller.abort(new Error("too late"));
    expect(((await receiving) as QueueMessage).id).to.equal(id);
  });

  it("quitAsync() ends the waits: they reject connectionClosed, saying the instance quit", async () => {
    const own = new RedisSMQ({ ...(await connectionOptionsOf(ns)) });
    const waits = [1, 2, 3].map(() => rejectionOf(own.receiveMessageAsync({ qname: "q", waitMs: MAX })));
    await waitFor(() => subscribed(), "the subscription");
    expect(await own.quitAsync()).to.equal("OK");
    for (const error of await Promise.all(waits)) {
      expect(error.name).to.equal("connectionClosed");
      expect(error.message).to.match(/quit/);
    }
  });

  it("refuses a bad waitMs or signal before any round trip", async () => {
    const bad: unknown[] = [-1, MAX + 1, 1.5, "5", NaN, null];
    const commands = await monitor(async () => {
      for (const waitMs of bad) {
        const error = await rejectionOf(rsmq.receiveMessageAsync({ qname: "q", waitMs } as never));
        expect(error.name, String(waitMs)).to.equal("invalidValue");
        expect(error.message).to.match(/waitMs/);
        const batch = await rejectionOf(rsmq.receiveMessagesAsync({ qname: "q", count: 2, waitMs } as never));
        expect(batch.name).to.equal("invalidValue");
      }
      const error = await rejectionOf(rsmq.receiveMessageAsync({ qname: "q", waitMs: 10, signal: {} } as never));
      expect(error.name).to.equal("invalidValue");
      expect(error.message).to.match(/signal/);
    });
    expect(clientCommands(commands)).to.deep.equal([]);
  });

  it("50 waiting calls share one subscription; one send wakes them, one gets it, the others wait on without spinning", async () => {
    const controller = new AbortController();
    // 50 calls listen on one signal: more than Node's default before it warns.
    setMaxListeners(60, controller.signal);
    const waits = Array.from({ length: 50 }, () =>
      rsmq.receiveMessageAsync({ qname: "q", vt: 30, waitMs: MAX, signal: controller.signal }).then(
        (got) => ({ got }),
        (error: unknown) => ({ error }),
      ),
    );
    await waitFor(() => subscribed(), "the subscription");
    expect(await subscribers()).to.equal(1);
    let settled = 0;
    waits.forEach((wait) => void wait.then(() => settled++));
    const stats = await looksDuring(async () => {
      await sender.sendMessageAsync({ qname: "q", message: "one for fifty" });
      await waitFor(() => settled === 1, "the one call that got the message");
    });
    // The send's script, and at most one look per waiting call (a wake during its first look may add one).
    expect(stats.evalsha, JSON.stringify(stats)).to.be.within(2, 1 + 2 * 50);
    // The others sleep now (the message is hidden for 30 s): no look while nothing happens.
    const quiet = await commandStatsDuring(() => new Promise((resolve) => setTimeout(resolve, 300)));
    expect(quiet.evalsha ?? 0, JSON.stringify(quiet)).to.equal(0);
    expect(settled).to.equal(1);
    controller.abort(new Error("done"));
    const outcomes = await Promise.all(waits);
    expect(outcomes.filter((outcome) => "got" in outcome)).to.have.length(1);
    expect(outcomes.filter((outcome) => "error" in outcome)).to.have.length(49);
    await waitFor(async () => (await subscribers()) === 0, "the subscription's release");
  });

  it("shares the subscription with a Worker of the same instance: no SUBSCRIBE, and 2 looks for an empty wait", async () => {
    const worker = cleanup.worker(new RedisSMQ.Worker(rsmq, { qname: "q", handler: () => undefined }));
    await loadPollScripts(ns, "q");
    worker.start();
    await waitFor(() => subscribed(), "the Worker's subscription");
    await waitFor(() => worker.counters.receives + worker.counters.looks >= 2, "the Worker's start-up receives");
    let got: unknown;
    // The idle Worker sleeps its 30 s cap meanwhile: every EVALSHA below is the waiting call's.
    const stats = await commandStatsDuring(async () => {
      got = await rsmq.receiveMessageAsync({ qname: "q", waitMs: 1000 });
    });
    expect(got).to.deep.equal({});
    expect(stats.evalsha, JSON.stringify(stats)).to.equal(2);
    expect(stats[onCluster() ? "ssubscribe" : "subscribe"] ?? 0, JSON.stringify(stats)).to.equal(0);
    expect(await subscribers()).to.equal(1);
    await worker.stop();
    await waitFor(async () => !(await subscribed()), "the release once neither needs it");
  });

  it("without waitMs it answers at once, empty", async () => {
    expect(await rsmq.receiveMessageAsync({ qname: "q" })).to.deep.equal({});
    expect(await rsmq.receiveMessageAsync({ qname: "q", waitMs: 0 })).to.deep.equal({});
    expect(await subscribers()).to.equal(0);
  });

  async function subscribers(): Promise<number> {
    const client = await plainClient();
    try {
      return await subscribersOf(client, keysOf(ns, "q").realtimeChannel);
    } finally {
      await client.quit();
    }
  }

  async function subscribed(): Promise<boolean> {
    return (await subscribers()) > 0;
  }
});

async function connectionOptionsOf(ns: string): Promise<object> {
  const { connectionOptions } = await import("../support/server");
  return connectionOptions(ns);
}
