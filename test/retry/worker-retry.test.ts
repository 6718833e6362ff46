/**
 * The Worker with its retry policy on a real queue: the background document's three cases end to
 * end (poison at once, transient until exhausted, never ready until exhausted, each dead-lettered
 * with why, readable by rsmq 0.12.4), the retry's timing read from the server, onStop "delete",
 * the deadLetterQueue option and its validation.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { Cleanup, delay, waitFor } from "../support/worker";
import { asMessage } from "../support/old-rsmq";
import { CommandWatch, loadScripts, messageFields, nodeOfQueue, oldRsmqOr, serverNowMs, watchDuring } from "../support/retry";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { Worker, PoisonError } = RedisSMQ;
type QueueMessage = RedisSMQ.QueueMessage;
type Worker = RedisSMQ.Worker;
type GaveUpInfo = RedisSMQ.GaveUpInfo;
type StopInfo = RedisSMQ.WorkerEvents["stop"][1];
type RetryInfo = RedisSMQ.WorkerEvents["retry"][1];
type GaveUp = [event: "deadLettered" | "dropped", message: QueueMessage, info: GaveUpInfo];

/**
 * The retry, deadLettered and dropped events of a worker, in order; and the deprecated `stop`,
 * which must repeat each of the last two with `action` naming it.
 */
function recordDecisions(worker: Worker): {
  retries: Array<[QueueMessage, RetryInfo]>;
  gaveUp: GaveUp[];
  stops: Array<[QueueMessage, StopInfo]>;
} {
  const log = { retries: [] as Array<[QueueMessage, RetryInfo]>, gaveUp: [] as GaveUp[], stops: [] as Array<[QueueMessage, StopInfo]> };
  worker.on("retry", (message, info) => log.retries.push([message, info]));
  worker.on("deadLettered", (message, info) => log.gaveUp.push(["deadLettered", message, info]));
  worker.on("dropped", (message, info) => log.gaveUp.push(["dropped", message, info]));
  worker.on("stop", (message, info) => log.stops.push([message, info]));
  return log;
}

/** The deprecated `stop` events, as the deadLettered or dropped they repeat. */
function stopsAsGaveUp(stops: Array<[QueueMessage, StopInfo]>): GaveUp[] {
  return stops.map(([message, { action, ...info }]) => [action === "deleted" ? "dropped" : "deadLettered", message, info]);
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Each gave-up event as [event, body, rc, reason, error message], for comparing as plain rows. */
function gaveUpRows(gaveUp: GaveUp[]): Array<[string, string, number, string, string]> {
  return gaveUp.map(([event, message, info]) => [event, message.message, message.rc, info.reason, messageOf(info.error)]);
}

describe("Worker: retries and dead letters", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    client = await plainClient();
    cleanup.add(() => client.quit());
  });
  afterEach(() => cleanup.run());

  it("the three cases: poison stops after one delivery, transient and not-ready end exhausted after 3; each is dead-lettered with why", async () => {
    await rsmq.createQueueAsync({ qname: "settle", vt: 45, delay: 7, maxsize: 2048 });
    expect(await rsmq.listQueuesAsync()).to.deep.equal(["settle"]);
    const transientErrors = [
      "send: rpc: connection refused",
      "settling for 5s without tx hash, waiting",
      "settling for 10s without tx hash, waiting",
    ];
    const deliveries: Record<string, number[]> = {};
    const worker = cleanup.worker(
      new Worker(rsmq, {
        qname: "settle",
        realtimeWakes: false,
        retry: { maxDeliveries: 3, jitter: "none", initialDelayMs: 50 },
        handler: (message) => {
          (deliveries[message.message] ??= []).push(message.rc);
          if (message.message === "pi_0001") throw new PoisonError("retrying will not help; nothing was sent");
          if (message.message === "pi_0002") throw new Error(transientErrors[message.rc - 1]);
          throw new Error("not authorized yet");
        },
      }),
    );
    expect(new RedisSMQ.RetryPolicy({ maxDeliveries: 3, jitter: "none" }).describe()).to.equal(
      "at most 3 deliveries; back off 5s doubling, capped at 2m0s",
    );
    const decisions = recordDecisions(worker);
    const before = await serverNowMs(client);
    const ids: Record<string, string> = {};
    for (const body of ["pi_0001", "pi_0002", "pi_0003"])
      ids[body] = await rsmq.sendMessageAsync({ qname: "settle", message: body, delay: 0 });
    worker.start();
    await waitFor(() => worker.counters.deadLettered === 3, "three messages dead-lettered");
    await worker.stop();
    const after = await serverNowMs(client);

    // Deliveries, as each handler saw its rc.
    expect(deliveries).to.deep.equal({ pi_0001: [1], pi_0002: [1, 2, 3], pi_0003: [1, 2, 3] });
    // Each retry: the backoff for that rc (50, then 100 ms) and the error that caused it.
    const retries = decisions.retries.map(([message, info]) => [message.message, message.rc, info.delayMs, messageOf(info.error)]);
    expect(retries.filter(([body]) => body === "pi_0002")).to.deep.equal([
      ["pi_0002", 1, 50, transientErrors[0]],
      ["pi_0002", 2, 100, transientErrors[1]],
    ]);
    expect(retries.filter(([body]) => body === "pi_0003")).to.deep.equal([
      ["pi_0003", 1, 50, "not authorized yet"],
      ["pi_0003", 2, 100, "not authorized yet"],
    ]);
    expect(retries).to.have.length(4);
    const gaveUp = gaveUpRows(decisions.gaveUp);
    expect(gaveUp.sort()).to.deep.equal([
      ["deadLettered", "pi_0001", 1, "poison", "retrying will not help; nothing was sent"],
      ["deadLettered", "pi_0002", 3, "exhausted", transientErrors[2]],
      ["deadLettered", "pi_0003", 3, "exhausted", "not authorized yet"],
    ]);
    expect(decisions.gaveUp.find(([, message]) => message.message === "pi_0001")![2].error).to.be.instanceOf(PoisonError);
    expect(stopsAsGaveUp(decisions.stops)).to.deep.equal(decisions.gaveUp);
    expect(worker.counters).to.include({ failed: 7, retried: 4, deadLettered: 3, dropped: 0, handled: 0, errors: 0 });

    // The source queue holds nothing of them any more.
    expect(await client.zCard(keysOf(ns, "settle").messages)).to.equal(0);
    expect(await messageFields(client, ns, "settle")).to.deep.equal([]);

    // In the dead-letter queue: same id and body, and why.
    const peeked = await rsmq.peekDeadLettersAsync({ qname: "settle-dlq" });
    expect(peeked).to.have.length(3);
    const byBody = Object.fromEntries(peeked.map((entry) => [entry.message, entry]));
    const expected: Record<string, { deliveries: number; reason: string; error: string }> = {
      pi_0001: { deliveries: 1, reason: "poison", error: "retrying will not help; nothing was sent" },
      pi_0002: { deliveries: 3, reason: "exhausted", error: transientErrors[2] },
      pi_0003: { deliveries: 3, reason: "exhausted", error: "not authorized yet" },
    };
    for (const [body, why] of Object.entries(expected)) {
      const entry = byBody[body];
      expect(entry, body).to.not.equal(undefined);
      expect(entry.id, body).to.equal(ids[body]);
      const { at, ...rest } = entry.deadLetter!;
      expect(rest, body).to.deep.equal({ source: "settle", ...why });
      expect(at, body).to.be.within(before, after);
    }

    // Created on demand with the source's settings, and registered.
    expect(await rsmq.listQueuesAsync()).to.have.members(["settle", "settle-dlq"]);
    // rsmq 0.12.4 on one server; it cannot run on a cluster, where rsmq-next reads them instead.
    const { reader: old, close } = oldRsmqOr(ns, rsmq);
    cleanup.add(close);
    expect(await old.listQueuesAsync()).to.have.members(["settle", "settle-dlq"]);
    for (const attributes of [
      await rsmq.getQueueAttributesAsync({ qname: "settle-dlq" }),
      await old.getQueueAttributesAsync({ qname: "settle-dlq" }),
    ]) {
      expect(attributes).to.include({ vt: 45, delay: 7, maxsize: 2048, msgs: 3, totalsent: 3, totalrecv: 0 });
    }
    // Visible now (rsmq 0.12.4 would count them hidden within the second: it compares with <sec>000).
    expect(await rsmq.getQueueAttributesAsync({ qname: "settle-dlq" })).to.include({ hiddenmsgs: 0 });

    // rsmq 0.12.4 receives them as ordinary new messages: `<id>:dl` is invisible to it.
    const fieldsBefore = await messageFields(client, ns, "settle-dlq");
    expect(fieldsBefore).to.deep.equal(
      Object.values(ids)
        .flatMap((id) => [id, `${id}:dl`])
        .sort(),
    );
    const received: QueueMessage[] = [];
    for (let i = 0; i < 3; i++) received.push(asMessage(await old.receiveMessageAsync({ qname: "settle-dlq" })));
    expect(received.map((message) => message.message).sort()).to.deep.equal(["pi_0001", "pi_0002", "pi_0003"]);
    for (const message of received) {
      expect(Object.keys(message).sort()).to.deep.equal(["fr", "id", "message", "rc", "sent"]);
      expect(message.id).to.equal(ids[message.message]);
      expect(message.rc).to.equal(1);
    }
    // Deleting with rsmq-next removes `<id>:dl` along with the body, rc and fr.
    for (const message of received) expect(await rsmq.deleteMessageAsync({ qname: "settle-dlq", id: message.id })).to.equal(1);
    expect(await messageFields(client, ns, "settle-dlq")).to.deep.equal([]);
    expect(await client.zCard(keysOf(ns, "settle-dlq").messages)).to.equal(0);
  });

  it("a retry hides the message until now + delay (server clock) with one hideMessage EVALSHA, and the worker wakes for it by itself", async () => {
    await rsmq.createQueueAsync({ qname: "q", vt: 45 });
    // Cached on the server, so each call is exactly one EVALSHA (no NOSCRIPT + EVAL).
    await loadScripts(client, [
      "receiveMessage",
      "deleteAndReceive",
      "hideMessage",
      "deleteMessage",
      "deleteMessages",
      "sendMessage",
      "getQueueAttributes",
    ]);
    // Looked up before watching: the cluster harness asks the nodes (CLUSTER NODES) for it.
    const home = await nodeOfQueue(ns, "q");
    const watch = await CommandWatch.open();
    cleanup.add(() => watch.close());
    let failedAt: number | undefined;
    const worker = cleanup.worker(
      new Worker(rsmq, {
        qname: "q",
        realtimeWakes: false,
        // Without its own wake it would sleep out the message's 45 s vt (and the 60 s cap).
        maxIdleSleepMs: 60_000,
        retry: { maxDeliveries: 5, initialDelayMs: 400, jitter: "none" },
        handler: async (message) => {
          if (message.rc === 1) {
            failedAt = await serverNowMs(client);
            throw new Error("flaky");
          }
        },
      }),
    );
    const decisions = recordDecisions(worker);
    let hidden: Promise<{ score: number | null; readAt: number }> | undefined;
    worker.on("retry", (message) => {
      hidden = (async () => ({ score: await client.zScore(keysOf(ns, "q").messages, message.id), readAt: await serverNowMs(client) }))();
    });
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "m" });
    worker.start();
    await waitFor(() => worker.counters.handled === 1, "the retried message handled", 5_000);
    await worker.stop();

    expect(decisions.retries.map(([message, info]) => [message.id, message.rc, info.delayMs, messageOf(info.error)])).to.deep.equal([
      [id, 1, 400, "flaky"],
    ]);
    const { score, readAt } = await hidden!;
    // hideMessage took its clock between the handler's failure and the read after the event.
    expect(score).to.be.a("number");
    expect(score! - 400).to.be.within(failedAt!, readAt);

    const hides = await watch.scriptCalls("hideMessage");
    // With its receipt (rc 1) and released: the message is let go for its backoff, its concurrency lease ends.
    const { messages, hash, leases } = keysOf(ns, "q");
    expect(hides.map((command) => command.args.slice(2))).to.deep.equal([["3", messages, hash, leases, id, "400", "1", "1"]]);
    expect(hides[0].node).to.equal(home.port);
    const commands = await watch.commands();
    // No other way of hiding (changeMessageVisibility, a plain ZADD) and no send besides the test's.
    expect(
      commands.filter((command) => !command.fromScript && !["evalsha", "evalsha_ro", "echo", "time", "zscore"].includes(command.args[0])),
    ).to.deep.equal([]);
    expect(await watch.scriptCalls("changeMessageVisibility")).to.have.length(0);
    expect(await watch.scriptCalls("sendMessage")).to.have.length(1);
    // Received again by the worker's own receives: once taken, once empty (asleep), once after the wake.
    expect(worker.counters).to.include({ failed: 1, retried: 1, handled: 1, deadLettered: 0, errors: 0 });
    expect(worker.counters.receives).to.be.at.least(3);
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).totalsent).to.equal(1);
  });

  it('onStop "delete": stopped messages are deleted and no dead-letter queue is made', async () => {
    await rsmq.createQueueAsync({ qname: "q" });
    const worker = cleanup.worker(
      new Worker(rsmq, {
        qname: "q",
        onStop: "delete",
        retry: { maxDeliveries: 2, initialDelayMs: 20, jitter: "none" },
        handler: (message) => {
          throw message.message === "poison" ? new PoisonError("bad payload") : new Error("down");
        },
      }),
    );
    const decisions = recordDecisions(worker);
    await rsmq.sendMessageAsync({ qname: "q", message: "poison" });
    await rsmq.sendMessageAsync({ qname: "q", message: "flaky" });
    worker.start();
    await waitFor(() => worker.counters.dropped === 2, "both dropped");
    await worker.stop();

    const gaveUp = gaveUpRows(decisions.gaveUp);
    expect(gaveUp.sort()).to.deep.equal([
      ["dropped", "flaky", 2, "exhausted", "down"],
      ["dropped", "poison", 1, "poison", "bad payload"],
    ]);
    expect(stopsAsGaveUp(decisions.stops)).to.deep.equal(decisions.gaveUp);
    expect(worker.counters).to.include({ failed: 3, retried: 1, dropped: 2, deadLettered: 0, errors: 0 });
    expect(await client.zCard(keysOf(ns, "q").messages)).to.equal(0);
    expect(await messageFields(client, ns, "q")).to.deep.equal([]);
    expect(await client.exists([keysOf(ns, "q-dlq").messages, keysOf(ns, "q-dlq").hash])).to.equal(0);
    expect(await rsmq.listQueuesAsync()).to.deep.equal(["q"]);
  });

  it("deadLetterQueue names the dead-letter queue; the stored error is the message, bounded to 1000 characters", async () => {
    await rsmq.createQueueAsync({ qname: "orders" });
    const long = "x".repeat(5000);
    const worker = cleanup.worker(
      new Worker(rsmq, {
        qname: "orders",
        deadLetterQueue: "orders-failed",
        handler: (message) => {
          if (message.message === "long") throw new PoisonError(long);
          // A thrown non-Error is recorded as its string form.
          throw "not an error";
        },
        retry: { maxDeliveries: 1 },
      }),
    );
    await rsmq.sendMessageAsync({ qname: "orders", message: "long" });
    await rsmq.sendMessageAsync({ qname: "orders", message: "string" });
    worker.start();
    await waitFor(() => worker.counters.deadLettered === 2, "both dead-lettered");
    await worker.stop();
    const peeked = await rsmq.peekDeadLettersAsync({ qname: "orders-failed" });
    const why = Object.fromEntries(peeked.map((entry) => [entry.message, entry.deadLetter!]));
    expect(why.long).to.include({ source: "orders", reason: "poison", deliveries: 1, error: `${"x".repeat(1000)}...` });
    expect(why.string).to.include({ source: "orders", reason: "exhausted", deliveries: 1, error: "not an error" });
    expect(await rsmq.listQueuesAsync()).to.have.members(["orders", "orders-failed"]);
    expect(await client.exists([keysOf(ns, "orders-dlq").messages, keysOf(ns, "orders-dlq").hash])).to.equal(0);
  });

  it("a message gone from the queue when its handler fails is neither retried, dead-lettered nor dropped", async () => {
    await rsmq.createQueueAsync({ qname: "a" });
    await rsmq.createQueueAsync({ qname: "b" });
    // The handler deletes its own message, then fails: there is nothing left to hide or move.
    const handler = async (message: QueueMessage): Promise<void> => {
      await rsmq.deleteMessageAsync({ qname: message.message.split("/")[0], id: message.id });
      throw message.message.endsWith("poison") ? new PoisonError("bad") : new Error("flaky");
    };
    const toDlq = cleanup.worker(new Worker(rsmq, { qname: "a", handler, retry: { maxDeliveries: 3, initialDelayMs: 20 } }));
    const toDelete = cleanup.worker(new Worker(rsmq, { qname: "b", handler, onStop: "delete" }));
    const logs = [recordDecisions(toDlq), recordDecisions(toDelete)];
    await rsmq.sendMessageAsync({ qname: "a", message: "a/flaky" });
    await rsmq.sendMessageAsync({ qname: "a", message: "a/poison" });
    await rsmq.sendMessageAsync({ qname: "b", message: "b/poison" });
    toDlq.start();
    toDelete.start();
    await waitFor(() => toDlq.counters.failed === 2 && toDelete.counters.failed === 1, "three failures");
    // stop() waits for running handler tasks, and with them for what follows each failure.
    await Promise.all([toDlq.stop(), toDelete.stop()]);
    expect(toDlq.counters).to.include({ retried: 0, deadLettered: 0, dropped: 0, errors: 0 });
    expect(toDelete.counters).to.include({ retried: 0, deadLettered: 0, dropped: 0, errors: 0 });
    expect(logs.flatMap((log) => [...log.retries, ...log.gaveUp, ...log.stops])).to.deep.equal([]);
    expect(await client.exists([keysOf(ns, "a-dlq").messages, keysOf(ns, "a-dlq").hash])).to.equal(0);
    expect(await rsmq.listQueuesAsync()).to.have.members(["a", "b"]);
  });

  describe("deadLetterQueue validation, before any Redis call", () => {
    const handler = (): void => undefined;

    it("rejects a deadLetterQueue equal to qname, badly formatted, or reserved", async () => {
      const commands = await watchDuring(async () => {
        expect(() => new Worker(rsmq, { qname: "q", handler, deadLetterQueue: "q" })).to.throw(
          RangeError,
          'Expected `deadLetterQueue` to differ from `qname`, got "q" for both',
        );
        expect(() => new Worker(rsmq, { qname: "q", handler, deadLetterQueue: "bad name" })).to.throw(
          RangeError,
          "Expected `deadLetterQueue` to be a queue name (1 to 160 letters, digits, `-` or `_`), got `bad name` (string)",
        );
        expect(() => new Worker(rsmq, { qname: "q", handler, deadLetterQueue: "QUEUES" })).to.throw(/deadLetterQueue.*reserved/);
        expect(() => new Worker(rsmq, { qname: "q", handler, onStop: "drop" as "delete" })).to.throw(
          /`onStop`.*"deadLetter" or "delete".*`drop`/,
        );
        await delay(20);
      });
      expect(commands.map((command) => command.args[0])).to.deep.equal([]);
    });

    it("rejects a default name (<qname>-dlq) over 160 characters, telling to set deadLetterQueue", async () => {
      const commands = await watchDuring(async () => {
        expect(() => new Worker(rsmq, { qname: "a".repeat(157), handler })).to.throw(
          RangeError,
          `The default dead-letter queue name "${"a".repeat(157)}-dlq" is longer than 160 characters: set \`deadLetterQueue\``,
        );
        expect(() => new Worker(rsmq, { qname: "a".repeat(160), handler })).to.throw(/longer than 160 characters: set `deadLetterQueue`/);
        // 156 + "-dlq" is exactly 160; an explicit name or onStop "delete" needs no default.
        expect(() => new Worker(rsmq, { qname: "a".repeat(156), handler })).not.to.throw();
        expect(() => new Worker(rsmq, { qname: "a".repeat(160), handler, deadLetterQueue: "a-dlq" })).not.to.throw();
        expect(() => new Worker(rsmq, { qname: "a".repeat(160), handler, onStop: "delete" })).not.to.throw();
        await delay(20);
      });
      expect(commands.map((command) => command.args[0])).to.deep.equal([]);
    });
  });
});
