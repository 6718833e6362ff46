/**
 * Schedules beside rsmq 0.12.4: a scheduled message is an ordinary rsmq message (an old consumer
 * receives it as it receives a sent one), an old deleteQueue leaves nothing of a queue's schedules
 * but the slots' dedup claims, which expire by their TTL, a purge keeps the schedules, and the
 * doctor knows their fields.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { fireSchedule } from "../../lib/operations/fire-schedule";
import type { FireOutcome } from "../../lib/operations/fire-schedule";
import { readSchedules } from "../../lib/operations/list-schedules";
import { planFire } from "../../lib/schedules/fire-plan";
import { asMessage, besideOldRsmqOptions, openOldRsmq } from "../support/old-rsmq";
import type { Rsmq } from "../support/old-rsmq";
import { singleServerClient, uniqueNs } from "../support/server";
import { runsOn } from "../support/targets";

runsOn("single", "client");

describe("Differential: schedules, rsmq 0.12.4 and rsmq-next together", () => {
  let ns: string;
  let old: Rsmq;
  let next: RedisSMQ;
  let client: RedisClientType;

  /** A firer's pass over the queue's schedules: each schedule's plan, fired. */
  async function firePass(qname: string): Promise<FireOutcome[]> {
    const { layout, run } = internalsOf(next);
    const { nowMs, stored } = await run(() => readSchedules(layout, qname));
    const outcomes: FireOutcome[] = [];
    for (const schedule of stored) {
      const plan = planFire(schedule, nowMs);
      if (plan) outcomes.push(await run(() => fireSchedule(layout, "wake", qname, schedule, plan)));
    }
    return outcomes;
  }

  /** A queue with one `every` schedule whose first slot (its upsert's time) is due at once, fired. */
  async function firedQueue(qname: string): Promise<string> {
    await next.createQueueAsync({ qname });
    await next.upsertScheduleAsync({ qname, name: "tick", every: 3_600_000, message: "scheduled body" });
    const [outcome] = await firePass(qname);
    expect(outcome.status).to.equal("fired");
    expect(outcome.ids).to.have.length(1);
    return outcome.ids[0];
  }

  beforeEach(async () => {
    ns = uniqueNs();
    old = openOldRsmq(ns);
    next = new RedisSMQ(besideOldRsmqOptions(ns));
    client = await singleServerClient();
  });
  afterEach(async () => {
    await old.quitAsync();
    await next.quitAsync();
    await client.quit();
  });

  it("rsmq 0.12.4's receiveMessage takes a scheduled message as it takes a sent one: the same reply shape, the body", async () => {
    const id = await firedQueue("q");
    const sentId = await next.sendMessageAsync({ qname: "q", message: "sent body" });
    const scheduled = asMessage(await old.receiveMessageAsync({ qname: "q" }));
    const sent = asMessage(await old.receiveMessageAsync({ qname: "q" }));
    expect(scheduled).to.include({ id, message: "scheduled body", rc: 1 });
    expect(sent).to.include({ id: sentId, message: "sent body", rc: 1 });
    expect(Object.keys(scheduled).sort()).to.deep.equal(Object.keys(sent).sort());
    expect(await old.getQueueAttributesAsync({ qname: "q" })).to.include({ msgs: 2, hiddenmsgs: 2, totalsent: 2, totalrecv: 2 });
    expect(await old.deleteMessageAsync({ qname: "q", id })).to.equal(1);
  });

  it("rsmq 0.12.4's deleteQueue leaves no key but the slots' dedup claims, each with a TTL", async () => {
    await firedQueue("q");
    expect(await old.deleteQueueAsync({ qname: "q" })).to.equal(1);
    const left = await client.keys(`${ns}:*`);
    expect(left).to.have.length(1);
    expect(left[0]).to.match(new RegExp(`^${ns}:q:dedup:[0-9a-f]{64}$`));
    expect(await client.pTTL(left[0])).to.be.within(1, 7 * 86_400_000);
  });

  it("a purge keeps the schedules, their index and schednext, and drops the message and its `:at`", async () => {
    const id = await firedQueue("q");
    await next.upsertScheduleAsync({ qname: "q", name: "other", every: 60_000, message: "m" });
    const hash = `${ns}:q:Q`;
    const kept = await client.hmGet(hash, ["schedules", "schednext", "~sched:tick", "~sched:other"]);
    expect(await client.hExists(hash, `${id}:at`)).to.equal(true);
    expect(await next.purgeQueueAsync({ qname: "q" })).to.equal(1);
    expect(await client.hmGet(hash, ["schedules", "schednext", "~sched:tick", "~sched:other"])).to.deep.equal(kept);
    expect(await client.hExists(hash, id)).to.equal(false);
    expect(await client.hExists(hash, `${id}:at`)).to.equal(false);
    expect((await next.listSchedulesAsync({ qname: "q" })).map(({ name }) => name)).to.deep.equal(["other", "tick"]);
  });

  it("the doctor finds nothing on a queue with schedules and a scheduled message", async () => {
    await firedQueue("q");
    await next.upsertScheduleAsync({ qname: "q", name: "paused", cron: "0 2 * * *", tz: "Europe/Berlin", message: "m" });
    await next.pauseScheduleAsync({ qname: "q", name: "paused" });
    const report = await next.doctorAsync();
    expect(report.findings).to.deep.equal([]);
  });
});
