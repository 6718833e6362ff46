/**
 * The look's schedule hint (lua/shared/next-due.lua): a queue whose hash has `schednext` (the
 * earliest next slot of its schedules that may fire, server ms; 0 when one is not yet known)
 * gets, in the Worker's look and in its look with a beat, the ms until then (0: due now), whatever
 * else the look answers (an empty queue, a message due later, a pause); a queue without it gets
 * the look it always got. The field is written here with HSET, as the schedule scripts keep it.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib");
import { internalsOf } from "../../lib/internals";
import type { RedisSMQInternals } from "../../lib/internals";
import { beatJson, lookAndBeat, newWorkerId } from "../../lib/operations/consumer-beat";
import { idleLook, nextDue } from "../../lib/operations/next-due";
import type { IdleLook } from "../../lib/operations/next-due";
import { DueWindow } from "../support/due-window";
import { serverNowMs } from "../support/inspect";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { Cleanup } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

describe("the look's schedule hint (schednext)", () => {
  let ns: string;
  let rsmq: RedisSMQ;
  let internals: RedisSMQInternals;
  let redis: RedisClientType;
  const cleanup = new Cleanup();
  const hash = (): string => keysOf(ns, "q").hash;
  const workerId = newWorkerId();
  const look = (): Promise<IdleLook> => internals.run(() => idleLook(internals.layout, "q"));
  const lookWithBeat = (): Promise<IdleLook> =>
    internals.run(() => lookAndBeat(internals.layout, "q", { workerId, json: beatJson("host", 1, 1, 0), ttlMs: 60_000 }));
  const looks = async (): Promise<IdleLook[]> => [await look(), await lookWithBeat()];

  beforeEach(async () => {
    ns = uniqueNs("hint");
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    internals = internalsOf(rsmq);
    redis = await plainClient();
    cleanup.add(() => redis.quit());
    await rsmq.createQueueAsync({ qname: "q" });
  });
  afterEach(() => cleanup.run());

  it("without schednext: scheduleDueMs is undefined, the look as it was", async () => {
    for (const answer of await looks()) expect(answer).to.deep.equal({ nextDueMs: null, sweepWanted: false, scheduleDueMs: undefined });
    await rsmq.sendMessageAsync({ qname: "q", message: "now" });
    for (const answer of await looks()) expect(answer).to.deep.equal({ nextDueMs: 0, sweepWanted: false, scheduleDueMs: undefined });
  });

  it("a slot in the past, or not yet known (0): 0", async () => {
    await redis.hSet(hash(), "schednext", String((await serverNowMs(redis)) - 5_000));
    for (const answer of await looks()) expect(answer).to.deep.equal({ nextDueMs: null, sweepWanted: false, scheduleDueMs: 0 });
    await redis.hSet(hash(), "schednext", "0");
    for (const answer of await looks()) expect(answer).to.deep.equal({ nextDueMs: null, sweepWanted: false, scheduleDueMs: 0 });
  });

  it("a slot later: the ms until it by the server's clock, beside a message due later", async () => {
    await rsmq.sendMessageAsync({ qname: "q", message: "later", delay: 600 });
    const window = await DueWindow.open(redis);
    await redis.hSet(hash(), "schednext", String((await serverNowMs(redis)) + 60_000));
    const [first, second] = await looks();
    const range = await window.range(60_000);
    for (const answer of [first, second]) {
      expect(answer.scheduleDueMs).to.be.within(...range);
      expect(answer.nextDueMs).to.be.a("number").and.above(60_000);
      expect(answer.sweepWanted).to.equal(false);
    }
  });

  it("a paused queue: the pause, and the hint (a pause holds messages, not firing)", async () => {
    const id = await rsmq.sendMessageAsync({ qname: "q", message: "held" });
    await rsmq.pauseQueueAsync({ qname: "q" });
    await redis.hSet(hash(), "schednext", "1");
    for (const answer of await looks()) {
      expect(answer.nextDueMs).to.deep.include({ reason: "paused" });
      expect(answer.scheduleDueMs).to.equal(0);
    }
    // Paused and empty alike.
    await rsmq.deleteMessageAsync({ qname: "q", id });
    for (const answer of await looks()) {
      expect(answer.nextDueMs).to.deep.include({ reason: "paused" });
      expect(answer.scheduleDueMs).to.equal(0);
    }
  });

  it("a look with a beat still writes the beat and keeps the consumers index", async () => {
    await redis.hSet(hash(), "schednext", "1");
    await lookWithBeat();
    await lookWithBeat();
    expect(await redis.hGet(hash(), "consumers")).to.equal(workerId);
    expect(await redis.hExists(hash(), `~w:${workerId}`)).to.equal(true);
  });

  it("nextDue's own answer is unchanged by the hint", async () => {
    await redis.hSet(hash(), "schednext", "1");
    expect(await internals.run(() => nextDue(internals.layout, "q"))).to.equal(null);
    await rsmq.sendMessageAsync({ qname: "q", message: "now" });
    expect(await internals.run(() => nextDue(internals.layout, "q"))).to.equal(0);
  });

  it("a missing queue still fails as before", async () => {
    await rsmq.deleteQueueAsync({ qname: "q" });
    const failure = await look().then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.name).to.equal("queueNotFound");
  });
});
