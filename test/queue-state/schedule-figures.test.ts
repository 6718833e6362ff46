/**
 * The schedule figures a queue-state reading carries (lua/queueStates-n.lua reads them with the
 * queue, so a scrape stays one script call): for each schedule, its name, counts and next run
 * equal what listSchedulesAsync says, a next slot not settled yet planned from the server's time
 * (an `every` and a cron schedule just written), none while paused or once ended; a name without
 * its field, or a field that is not a JSON object, is left out as listSchedulesAsync leaves it out.
 * The reply stays bounded: a schedule's message never travels, and at most 100 schedules a queue.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { internalsOf } from "../../lib/internals";
import { queueStates } from "../../lib/operations/queue-states";
import { QueueStateReader } from "../../lib/queue-state/queue-state-reader";
import type { ScheduleInfo } from "../../lib/types";
import { connectionOptions, keysOf, plainClient, uniqueNs } from "../support/server";
import { Cleanup } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

/** What the schedule metrics show of a listSchedulesAsync entry. */
function figuresOf({ name, count, missed, overlapped, nextRunAt }: ScheduleInfo) {
  return { name, count, missed, overlapped, nextRunAt };
}

describe("queue state: the schedule figures of a reading", () => {
  const cleanup = new Cleanup();
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;

  beforeEach(async () => {
    ns = uniqueNs("schedfigures");
    rsmq = cleanup.rsmq(new RedisSMQ(connectionOptions(ns)));
    client = await plainClient();
    cleanup.add(() => client.quit());
    for (const qname of ["jobs", "reports", "plain"]) await rsmq.createQueueAsync({ qname });
  });
  afterEach(() => cleanup.run());

  /** Writes schedule fields into `qname`'s hash by hand, and the index `names`. */
  async function writeByHand(qname: string, fields: Record<string, string>, names: string[]): Promise<void> {
    await client.hSet(keysOf(ns, qname).hash, { ...fields, schedules: names.join(" ") });
  }

  it("each schedule's counts and next run equal listSchedulesAsync's, by queue and name; a queue without schedules has none", async () => {
    // Hourly and nightly: the planned next run stays the same between the two reads.
    await rsmq.upsertScheduleAsync({ qname: "jobs", name: "hourly", every: 3_600_000, message: "hourly" });
    await rsmq.upsertScheduleAsync({ qname: "jobs", name: "held", every: 60_000, message: "held" });
    await rsmq.pauseScheduleAsync({ qname: "jobs", name: "held" });
    await rsmq.upsertScheduleAsync({ qname: "reports", name: "nightly", cron: "0 2 * * *", tz: "Europe/Berlin", message: "{}" });
    const { hash } = keysOf(ns, "reports");
    const index = await client.hGet(hash, "schedules");
    await client.hSet(hash, {
      "~sched:settled": JSON.stringify({
        every: 60_000,
        tz: "UTC",
        message: "m",
        next: 4_102_444_800_000,
        count: 3,
        missed: 2,
        overlapped: 1,
      }),
      "~sched:ended": JSON.stringify({ every: 60_000, tz: "UTC", message: "m", next: -1, count: "7" }),
      schedules: `${index} settled ended`,
    });

    const reading = await new QueueStateReader(rsmq).read();
    const expected = await Promise.all(
      ["jobs", "reports"].map(async (qname) => ({ qname, schedules: (await rsmq.listSchedulesAsync({ qname })).map(figuresOf) })),
    );
    expect(reading.schedules).to.deep.equal(expected);
    const byName = Object.fromEntries(reading.schedules.flatMap((queue) => queue.schedules).map((figures) => [figures.name, figures]));
    expect(byName.hourly.nextRunAt).to.be.a("number").and.above(0);
    expect(byName.nightly.nextRunAt).to.be.a("number").and.above(reading.now);
    expect([byName.held.nextRunAt, byName.ended.nextRunAt, byName.ended.count]).to.deep.equal([null, null, 7]);
    expect(byName.settled).to.deep.equal({ name: "settled", count: 3, missed: 2, overlapped: 1, nextRunAt: 4_102_444_800_000 });
    expect(reading.queues.map(({ qname, schedules }) => [qname, schedules])).to.deep.equal([
      ["jobs", 2],
      ["plain", 0],
      ["reports", 3],
    ]);
  });

  it("left out: a name without its field, a field that is not JSON, a JSON array", async () => {
    await rsmq.upsertScheduleAsync({ qname: "jobs", name: "kept", every: 3_600_000, message: "kept" });
    await writeByHand("jobs", { "~sched:text": "not json", "~sched:list": "[1,2]" }, ["gone", "kept", "text", "list"]);
    const reading = await new QueueStateReader(rsmq).read();
    expect(reading.schedules.map(({ qname, schedules }) => [qname, schedules.map((figures) => figures.name)])).to.deep.equal([
      ["jobs", ["kept"]],
    ]);
    expect(reading.schedules[0].schedules).to.deep.equal((await rsmq.listSchedulesAsync({ qname: "jobs" })).map(figuresOf));
    expect(reading.queues.find(({ qname }) => qname === "jobs")?.schedules, "the row counts what GET .../schedules lists").to.equal(
      (await rsmq.listSchedulesAsync({ qname: "jobs" })).length,
    );
  });

  it("bounded: a schedule's message is not in the reply, and at most 100 schedules a queue are read", async () => {
    const message = "x".repeat(50_000);
    await rsmq.upsertScheduleAsync({ qname: "jobs", name: "big", every: 3_600_000, message });
    const { layout, run } = internalsOf(rsmq);
    const raw = await run(() => ({ ...queueStates(layout, ["jobs"], false, 0), parse: (reply: unknown) => reply }));
    const [, , entry] = raw as [string, unknown, unknown[]];
    const [[name, count, missed, overlapped, next, paused, plan]] = entry[14] as string[][];
    expect([name, count, missed, overlapped, next, paused]).to.deep.equal(["big", "0", "0", "0", "0", "0"]);
    const planned = JSON.parse(plan) as Record<string, unknown>;
    expect(planned).not.to.have.property("message");
    expect(planned).to.include({ every: 3_600_000, tz: "UTC", next: 0, count: 0 });
    expect(JSON.stringify(raw).length).to.be.below(2_000);

    const names = Array.from({ length: 101 }, (_, i) => `s${String(i).padStart(3, "0")}`);
    const stored = JSON.stringify({ every: 60_000, tz: "UTC", message: "m", next: -1, count: 1 });
    await writeByHand("reports", Object.fromEntries(names.map((each) => [`~sched:${each}`, stored])), names);
    const reading = await new QueueStateReader(rsmq, { queues: ["reports"] }).read();
    expect(reading.schedules[0].schedules.map((figures) => figures.name)).to.deep.equal(names.slice(0, 100));
  });
});
