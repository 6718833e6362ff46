/**
 * The send scripts under a hard pause and a paced rate limit (lua/shared/queue-gate.lua): while
 * `paused` is of kind `h` every new score is its usual one + 1e14 ms (so no consumer, rsmq 0.12.4's
 * included, sees it until the resume restores it); in pace mode (`ratelimit` = `p;...`) the sends
 * space the messages' visible times at the limit, so an rsmq 0.12.4 consumer that receives as fast
 * as it can never takes more than max + burst in any window.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import {
  connectionOptions,
  keysOf,
  plainClient,
  singleServerClient,
  singleServerOnly,
  singleServerOptions,
  uniqueNs,
} from "../support/server";
import { openOldRsmq } from "../support/old-rsmq";
import { runsOn } from "../support/targets";
import { mostInWindow, pause, queueField, setQueueFields } from "./gate-fields";

runsOn("single", "cluster", "client");

const HARD_PAUSE_OFFSET_MS = 1e14;

describe("sends under a hard pause and a paced limit", function () {
  this.timeout(30_000);
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;

  beforeEach(async () => {
    ns = uniqueNs();
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
    client = await plainClient();
  });
  afterEach(async () => {
    await rsmq.quitAsync();
    await client.quit();
  });

  const scoreOf = async (id: string): Promise<number> => Number(await client.zScore(keysOf(ns, "q").messages, id));

  it("shifts every send's score by 1e14 ms while the queue is hard-paused (kind h)", async () => {
    await setQueueFields(client, ns, "q", { paused: "1::h" });
    const plain = await rsmq.sendMessageAsync({ qname: "q", message: "plain" });
    const delayed = await rsmq.sendMessageAsync({ qname: "q", message: "delayed", delay: 5 });
    const urgent = await rsmq.sendMessageAsync({ qname: "q", message: "urgent", priority: 9 });
    const once = await rsmq.sendMessageAsync({ qname: "q", message: "once", dedupId: "d1" });
    const batch = await rsmq.sendMessagesAsync({ qname: "q", messages: [{ message: "b1" }, { message: "b2", delay: 2 }] });
    // Each id holds its send's server time (us): the score is that ms, + delay or - priority, + 1e14.
    const sentBetween = async (id: string, dueInMs: number): Promise<void> => {
      const score = (await scoreOf(id)) - HARD_PAUSE_OFFSET_MS;
      const sentAtMs = Math.floor(parseInt(id.slice(0, 10), 36) / 1000);
      expect(score, id).to.equal(sentAtMs + dueInMs);
    };
    await sentBetween(plain, 0);
    await sentBetween(delayed, 5000);
    await sentBetween(urgent, -9 * 1e12);
    await sentBetween(once, 0);
    await sentBetween((batch[0] as { id: string }).id, 0);
    await sentBetween((batch[1] as { id: string }).id, 2000);
    expect(await rsmq.receiveMessagesAsync({ qname: "q", count: 10 })).to.have.property("blocked");
  });

  it("leaves the scores alone once the restore runs (kind r) and for a soft pause", async () => {
    for (const paused of ["1::r", "1::s"]) {
      await setQueueFields(client, ns, "q", { paused });
      const id = await rsmq.sendMessageAsync({ qname: "q", message: "m" });
      expect(await scoreOf(id)).to.equal(Math.floor(parseInt(id.slice(0, 10), 36) / 1000));
    }
  });

  it("paces sends at 10/1000 ms: visible times spaced by the limit, slots spent in rltat", async () => {
    await setQueueFields(client, ns, "q", { ratelimit: "p;10/1000/0" });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await rsmq.sendMessageAsync({ qname: "q", message: `m${i}`, priority: 9 }));
    const batch = await rsmq.sendMessagesAsync({ qname: "q", messages: Array.from({ length: 5 }, (_, i) => ({ message: `b${i}` })) });
    ids.push(...batch.map((result) => (result as { id: string }).id));
    const scores = await Promise.all(ids.map(scoreOf));
    for (let i = 1; i < scores.length; i++) expect(scores[i] - scores[i - 1], `gap ${i}`).to.be.at.least(100);
    // The first is visible at once (priority does not back-date a paced message).
    expect(scores[0]).to.equal(Math.floor(parseInt(ids[0].slice(0, 10), 36) / 1000));
    const tat = Number(await queueField(client, ns, "q", "rltat"));
    expect(Math.floor(tat / 1000)).to.be.within(scores[9] + 99, scores[9] + 100);
    // A receive-mode consumer of a paced queue is not counted against the limit.
    await pause(Math.max(0, scores[1] - scores[0]));
    expect((await rsmq.receiveMessagesAsync({ qname: "q", count: 10 })).messages.length).to.be.at.least(1);
  });

  it("does not pace a delayed send: it is due at its delay, and the sends after it keep their slots", async () => {
    await setQueueFields(client, ns, "q", { ratelimit: "p;10/1000/0" });
    const delayed = await rsmq.sendMessageAsync({ qname: "q", message: "later", delay: 60 });
    const next = await rsmq.sendMessageAsync({ qname: "q", message: "now" });
    const batch = await rsmq.sendMessagesAsync({ qname: "q", messages: [{ message: "later too", delay: 60 }, { message: "now too" }] });
    const sentAtMs = (id: string): number => Math.floor(parseInt(id.slice(0, 10), 36) / 1000);
    expect(await scoreOf(delayed)).to.equal(sentAtMs(delayed) + 60_000);
    expect(await scoreOf(next)).to.equal(sentAtMs(next));
    const [laterToo, nowToo] = batch.map((result) => (result as { id: string }).id);
    expect(await scoreOf(laterToo)).to.equal(sentAtMs(laterToo) + 60_000);
    // Paced behind `next` only: its slot is 100 ms after next's, not after the delayed ones.
    expect(await scoreOf(nowToo)).to.be.within(sentAtMs(nowToo), (await scoreOf(next)) + 100);
  });

  it("holds the limit for rsmq 0.12.4 consumers receiving as fast as they can (pace mode)", async function () {
    singleServerOnly(this, "rsmq 0.12.4 runs on one server");
    const single = await singleServerClient();
    const oldNs = uniqueNs();
    const producer = new RedisSMQ(singleServerOptions(oldNs));
    const consumers = [openOldRsmq(oldNs), openOldRsmq(oldNs)];
    try {
      await producer.createQueueAsync({ qname: "p" });
      await single.hSet(`${oldNs}:p:Q`, { ratelimit: "p;10/1000/0" });
      for (let i = 0; i < 10; i++) await producer.sendMessageAsync({ qname: "p", message: `s${i}` });
      await producer.sendMessagesAsync({ qname: "p", messages: Array.from({ length: 15 }, (_, i) => ({ message: `b${i}` })) });
      // The scores are the visible times: no window of 1000 ms makes more than 10 visible.
      const members = await single.zRangeWithScores(`${oldNs}:p`, 0, -1);
      const visibleAt = new Map(members.map(({ value, score }) => [value, score]));
      expect(mostInWindow([...visibleAt.values()], 1000)).to.equal(10);
      const received: Array<{ id: string; fr: number }> = [];
      const deadline = Date.now() + 15_000;
      await Promise.all(
        consumers.map(async (consumer) => {
          while (received.length < 25 && Date.now() < deadline) {
            const got = await consumer.receiveMessageAsync({ qname: "p" });
            if ("id" in got) received.push(got);
            else await pause(1);
          }
        }),
      );
      expect(received).to.have.length(25);
      // rsmq 0.12.4 takes none before its slot: its receives follow the paced visible times.
      for (const { id, fr } of received) expect(fr, id).to.be.at.least(visibleAt.get(id) as number);
      // All of them in 2.4 s and more: 25 at 10/s, never faster (a late receive can only bunch
      // with the next ones, by its own lateness).
      const frs = received.map(({ fr }) => fr).sort((a, b) => a - b);
      expect(frs[24] - frs[0]).to.be.at.least(2400 - (frs[0] - Math.min(...visibleAt.values())));
    } finally {
      await Promise.all(consumers.map((consumer) => consumer.quitAsync()));
      await producer.quitAsync();
      await single.quit();
    }
  });
});
