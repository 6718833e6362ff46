/**
 * The edges of priorities (docs/priorities.md): a delayed message keeps its due time; a
 * redelivered one (its vt ran out, changeMessageVisibility, a Worker's retry) is scored like any
 * other, without the offset; the next due time is the earliest score above now; peek shows when a
 * priority message became visible (its send time, not its score decades back); the oldest
 * visible age comes from the ids of the first message of each level; retention ages by the id.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { QueueStateReader } from "../../lib/queue-state/queue-state-reader";
import { sentAt } from "../../lib/operations/message-reply";
import { nextDue } from "../../lib/operations/next-due";
import { queueStats } from "../../lib/operations/queue-stats";
import { asMessage } from "../support/old-rsmq";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { serverNowMs } from "../support/inspect";
import { idSentAt, setRetention } from "../support/retention";
import { Cleanup, serverTimePassed, waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

const { Worker } = RedisSMQ;
const STEP = 1e12;

describe("Priorities: delays, redeliveries, next due, peek, ages", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  let keys: ReturnType<typeof keysOf>;

  beforeEach(async () => {
    ns = uniqueNs("prio");
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    client = await plainClient();
    cleanup.add(() => client.quit());
    keys = keysOf(ns, "q");
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => cleanup.run());

  const score = async (id: string): Promise<number> => (await client.zScore(keys.messages, id))!;
  const peekIds = async (): Promise<string[]> => (await rsmq.peekMessagesAsync({ qname: "q" })).map((m) => m.id);

  it("a delayed message keeps its due time, whatever its priority; next due is that time", async () => {
    const before = await serverNowMs(client);
    const delayed = await rsmq.sendMessageAsync({ qname: "q", message: "later", priority: 9, delay: 30 });
    const after = await serverNowMs(client);
    expect(await score(delayed)).to.be.within(before + 30_000, after + 30_000);
    const visible = await rsmq.sendMessageAsync({ qname: "q", message: "now", priority: 0 });
    const [first, second] = await rsmq.peekMessagesAsync({ qname: "q" });
    expect([first.id, first.state, second.id, second.state]).to.deep.equal([visible, "visible", delayed, "delayed"]);
    expect(second.dueAt).to.equal(await score(delayed));
    // Due now: the visible one; then the earliest score above now, the delayed one's.
    expect(await internalsOf(rsmq).run(() => nextDue(internalsOf(rsmq).layout, "q"))).to.equal(0);
    const { messages, nextDueMs } = await rsmq.receiveMessagesAsync({ qname: "q", count: 5, vt: 60 });
    expect(messages.map((m) => m.id)).to.deep.equal([visible]);
    expect(nextDueMs).to.be.within(20_000, 30_000);
    const due = await internalsOf(rsmq).run(() => nextDue(internalsOf(rsmq).layout, "q"));
    expect(due).to.be.within(20_000, 30_000);
  });

  it("next due is 0, never negative, while priority messages are visible", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "p9", priority: 9 });
    await rsmq.sendMessageAsync({ qname: "q", message: "p9 too", priority: 9 });
    expect(await internalsOf(rsmq).run(() => nextDue(internalsOf(rsmq).layout, "q"))).to.equal(0);
    // Both taken: the earliest score above now is their new one, receive + vt.
    const { messages, nextDueMs } = await rsmq.receiveMessagesAsync({ qname: "q", count: 5, vt: 30 });
    expect(messages.length).to.equal(2);
    expect(nextDueMs).to.be.within(29_000, 30_000);
  });

  it("a redelivered message (its vt ran out) is scored receive + vt, without the offset", async () => {
    const plain = await rsmq.sendMessageAsync({ qname: "q", message: "plain" });
    const high = await rsmq.sendMessageAsync({ qname: "q", message: "high", priority: 9 });
    const before = await serverNowMs(client);
    expect(asMessage(await rsmq.receiveMessageAsync({ qname: "q", vt: 1 })).id).to.equal(high);
    const after = await serverNowMs(client);
    const hiddenUntil = await score(high);
    expect(hiddenUntil).to.be.within(before + 1000, after + 1000);
    await serverTimePassed(client, 1, hiddenUntil);
    // Visible again, after the level-0 message sent before it.
    expect(await peekIds()).to.deep.equal([plain, high]);
    const [, again] = await rsmq.peekMessagesAsync({ qname: "q" });
    expect([again.state, again.dueAt]).to.deep.equal(["visible", hiddenUntil]);
    const redelivered = await rsmq.receiveMessagesAsync({ qname: "q", count: 2 });
    expect(redelivered.messages.map((m) => [m.id, m.rc])).to.deep.equal([
      [plain, 1],
      [high, 2],
    ]);
  });

  it("changeMessageVisibility vt 0 scores it now, without the offset", async () => {
    const plain = await rsmq.sendMessageAsync({ qname: "q", message: "plain" });
    const high = await rsmq.sendMessageAsync({ qname: "q", message: "high", priority: 9 });
    expect(asMessage(await rsmq.receiveMessageAsync({ qname: "q", vt: 60 })).id).to.equal(high);
    // A ms after the plain one's send, so the two scores differ.
    await serverTimePassed(client, 2, Math.ceil(sentAt(high)));
    const before = await serverNowMs(client);
    expect(await rsmq.changeMessageVisibilityAsync({ qname: "q", id: high, vt: 0 })).to.equal(1);
    const after = await serverNowMs(client);
    expect(await score(high)).to.be.within(before, after);
    expect(await peekIds()).to.deep.equal([plain, high]);
  });

  it("a Worker's retry hides the message for the backoff, without the offset", async () => {
    const high = await rsmq.sendMessageAsync({ qname: "q", message: "high", priority: 9 });
    const calls: number[] = [];
    let failedAt = 0;
    const worker = cleanup.worker(
      new Worker(rsmq, {
        qname: "q",
        concurrency: 1,
        retry: { initialDelayMs: 200, jitter: "none" },
        handler: async (message) => {
          calls.push(message.rc);
          if (message.rc === 1) {
            failedAt = await serverNowMs(client);
            throw new Error("first delivery fails");
          }
        },
      }),
    );
    worker.start();
    await waitFor(() => worker.counters.failed === 1, "the first delivery failed");
    // The receive hid it for the queue's vt (30 s); the retry hides it for the backoff instead.
    let retryScore: number | null = null;
    await waitFor(async () => {
      retryScore = await client.zScore(keys.messages, high);
      return retryScore === null || retryScore < failedAt + 5000;
    }, "hidden for the retry");
    // (null: already handled again and deleted.)
    if (retryScore !== null) expect(retryScore).to.be.within(failedAt + 200, failedAt + 5000);
    await waitFor(() => worker.counters.handled === 1, "handled on the retry");
    await worker.stop();
    expect(calls).to.deep.equal([1, 2]);
  });

  it("peek and the dashboard's page: a priority message became visible when it was sent", async () => {
    const plain = await rsmq.sendMessageAsync({ qname: "q", message: "plain" });
    const high = await rsmq.sendMessageAsync({ qname: "q", message: "high", priority: 4 });
    const peeked = await rsmq.peekMessagesAsync({ qname: "q" });
    expect(peeked.map((m) => [m.id, m.state])).to.deep.equal([
      [high, "visible"],
      [plain, "visible"],
    ]);
    expect(peeked[0].dueAt).to.equal(Math.floor(sentAt(high)));
    expect(peeked[1].dueAt).to.equal(await score(plain));
  });

  it("the oldest visible age and stats' waiting time come from the oldest first message of a level, by its id", async () => {
    const now = await serverNowMs(client);
    // As messages sent with priorities lay them out: score = send time - priority x 10^12.
    const planted: Array<[string, number, number]> = [
      ["level 0, 10 s old", 10_000, 0],
      ["level 3, 300 s old", 300_000, 3],
      ["level 3, 5 s old", 5_000, 3],
      ["level 9, 1 s old", 1_000, 9],
    ];
    const ids: string[] = [];
    for (const [body, ageMs, level] of planted) {
      const id = idSentAt(now - ageMs);
      ids.push(id);
      await client.hSet(keys.hash, id, body);
      await client.zAdd(keys.messages, { score: Math.floor(sentAt(id)) - level * STEP, value: id });
    }
    const reading = await new QueueStateReader(rsmq, { queues: ["q"] }).read();
    const row = reading.queues[0];
    expect(row.visible).to.equal(4);
    expect(row.oldestAgeMs).to.equal(Math.max(0, Math.round(reading.now - sentAt(ids[1]))));
    expect(row.oldestAgeMs).to.be.within(300_000, 310_000);
    const stats = await internalsOf(rsmq).run(() => queueStats(internalsOf(rsmq).layout, "q"));
    expect(stats.waitingMs).to.be.within(300_000, 310_000);
    // The next receive still gets the highest level first.
    expect(asMessage(await rsmq.receiveMessageAsync({ qname: "q" })).id).to.equal(ids[3]);
  });

  it("retention ages a priority message by its id, not its score", async () => {
    await setRetention(client, ns, "q", 60);
    const now = await serverNowMs(client);
    const stale = idSentAt(now - 120_000);
    await client.hSet(keys.hash, stale, "stale");
    await client.zAdd(keys.messages, { score: Math.floor(sentAt(stale)) - 9 * STEP, value: stale });
    const fresh = await rsmq.sendMessageAsync({ qname: "q", message: "fresh", priority: 9 });
    const { messages } = await rsmq.receiveMessagesAsync({ qname: "q", count: 5 });
    expect(messages.map((m) => m.id)).to.deep.equal([fresh]);
    expect(await client.hGet(keys.hash, "totalexpired")).to.equal("1");
    expect(await client.zScore(keys.messages, stale)).to.equal(null);
  });
});
