/**
 * Schedules fired by a fleet of processes (Schedulers and Workers in child processes, see
 * support/schedule-child.ts), checked from the queue itself: every message a schedule sent names
 * its schedule and slot (`<id>:at`), so a duplicate or a missing slot shows whichever process sent
 * it. Processes run side by side to keep the suite short: one 10 s run holds the 5-process
 * count, the process whose host clock is 30 s ahead, the upsert of a new timing while slots fire,
 * and the 4 processes that upsert the same schedule at once; then 20 start/stop cycles.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import { ScheduleFleet, duplicateSlots, scheduledMessages, sentAtMs } from "../support/schedule-fleet";
import type { ScheduleProcess } from "../support/schedule-fleet";
import type { ScheduleChildConfig } from "../support/schedule-child";
import { serverNowMs } from "../support/inspect";
import { connectionOptions, keysOf, onPassedClient, plainClient, singleServerOptions, uniqueNs } from "../support/server";
import { delay, serverTimePassed } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

/** Slots that should be there between `from` and `to` (inclusive) on the grid `anchor + k * every`. */
function gridSlots(anchor: number, every: number, from: number, to: number): number[] {
  const first = anchor + Math.ceil((from - anchor) / every) * every;
  const slots: number[] = [];
  for (let slot = first; slot <= to; slot += every) slots.push(slot);
  return slots;
}

describe("schedules: a fleet of firing processes", function () {
  this.timeout(60_000);
  const fleet = new ScheduleFleet();
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  let connection: Record<string, unknown>;

  beforeEach(async () => {
    ns = uniqueNs("fsch");
    rsmq = new RedisSMQ(connectionOptions(ns));
    client = await plainClient();
    // A child process cannot share this one's ioredis client: there, it connects to the same server.
    connection = (onPassedClient() ? singleServerOptions(ns) : connectionOptions(ns)) as unknown as Record<string, unknown>;
  });
  afterEach(async () => {
    await fleet.kill();
    await rsmq.quitAsync();
    await client.quit();
  });

  const storedField = async (qname: string, name: string): Promise<Record<string, number>> =>
    JSON.parse((await client.hGet(keysOf(ns, qname).hash, `~sched:${name}`))!) as Record<string, number>;

  it("5 processes (one with its clock 30 s ahead) fire `every: 1000` once per slot; a new timing applies from its next slot; 4 processes upserting at once make one schedule", async () => {
    for (const qname of ["every", "change", "deploy"]) await rsmq.createQueueAsync({ qname });
    await rsmq.upsertScheduleAsync({ qname: "every", name: "tick", every: 1000, message: "tick" });
    await rsmq.upsertScheduleAsync({ qname: "change", name: "beat", every: 1000, message: "beat" });
    const original = await storedField("change", "beat");
    const deploy: RedisSMQ.UpsertScheduleOptions = { qname: "deploy", name: "nightly", every: 1000, message: "deploy" };
    const upserting: ScheduleChildConfig = {
      connection,
      schedulerQnames: ["every", "change", "deploy"],
      upserts: [deploy],
      upsertOnGo: true,
    };
    const processes: ScheduleProcess[] = [
      fleet.spawn("ahead", upserting, 30_000),
      fleet.spawn("s2", upserting),
      fleet.spawn("s3", upserting),
      fleet.spawn("w1", { ...upserting, schedulerQnames: ["change", "deploy"], workerQnames: ["every"] }),
      fleet.spawn("w2", { connection, workerQnames: ["every"] }),
    ];
    await Promise.all(processes.map((process) => process.ready()));
    const startMs = await serverNowMs(client);
    for (const process of processes) process.say("go");

    // Four seconds in, the schedule of "change" gets a new timing, as a deploy would write it.
    await serverTimePassed(client, 4_000, startMs);
    await rsmq.upsertScheduleAsync({ qname: "change", name: "beat", every: 2000, message: "beat" });
    const changed = await storedField("change", "beat");
    await serverTimePassed(client, 11_500, startMs);
    const endMs = await serverNowMs(client);
    await Promise.all(processes.map((process) => process.stop()));
    expect(fleet.problems()).to.deep.equal([]);

    // "every": one message per slot, whoever sent it, never before its slot on the server's clock.
    const every = await scheduledMessages(client, ns, "every");
    expect(duplicateSlots(every)).to.deep.equal([]);
    for (const message of every) expect(sentAtMs(message.id), `slot ${message.slot} sent early`).to.be.at.least(message.slot);
    const window = every.filter((message) => message.slot >= startMs + 1_000 && message.slot < startMs + 11_000);
    expect(window.length, JSON.stringify(every.map((message) => message.slot - startMs))).to.be.within(9, 11);
    // The Workers handed theirs to their handlers with the schedule and slot.
    const handled = processes.flatMap((process) => process.named("message"));
    expect(handled.length).to.be.at.least(1);
    for (const line of handled) expect(every.find((message) => message.id === line.id)?.slot).to.equal(line.slot);

    // "change": the old grid up to the upsert, the new one (anchored at the upsert) from then on, no slot twice.
    const change = await scheduledMessages(client, ns, "change");
    expect(duplicateSlots(change)).to.deep.equal([]);
    expect(changed.every).to.equal(2000);
    const before = change.filter((message) => message.slot < changed.since).map((message) => message.slot);
    const after = change.filter((message) => message.slot >= changed.since).map((message) => message.slot);
    for (const slot of before) expect((slot - original.anchor) % 1000, `old slot ${slot}`).to.equal(0);
    expect(before.length).to.be.at.least(2);
    // From the slot the new timing starts at (its anchor, the upsert's time), every one of its slots, once.
    expect(after.length).to.be.at.least(3);
    expect(after).to.deep.equal(gridSlots(changed.anchor, 2000, changed.since, after[after.length - 1]));
    expect(after[0]).to.equal(changed.anchor);

    // "deploy": one definition, created by one of the four; one message per slot, none missing.
    const results = processes.flatMap((process) => process.named("upserted").map((line) => line.result));
    expect(results.sort()).to.deep.equal([0, 0, 0, 1]);
    const [info, ...others] = await rsmq.listSchedulesAsync({ qname: "deploy" });
    expect(others).to.deep.equal([]);
    expect(info.name).to.equal("nightly");
    const deployed = await scheduledMessages(client, ns, "deploy");
    expect(duplicateSlots(deployed)).to.deep.equal([]);
    const first = deployed[0].slot;
    const last = deployed[deployed.length - 1].slot;
    expect(deployed.map((message) => message.slot)).to.deep.equal(gridSlots(info.anchor!, 1000, first, last));
    expect(first).to.equal(info.anchor);
    expect(info.missed).to.equal(0);
    expect(deployed.length).to.be.at.least(8);
  });

  it("20 start/stop cycles of firing processes in 30 s: no slot twice, and every slot between the first and the last either fired or counted missed", async () => {
    await rsmq.createQueueAsync({ qname: "cycles" });
    await rsmq.upsertScheduleAsync({ qname: "cycles", name: "tick", every: 1000, message: "tick" });
    const lanes = 4;
    const cyclesPerLane = 5;
    /** One lane: a process started, left running a while, stopped (or killed, every other time), again. */
    const lane = async (index: number): Promise<void> => {
      await delay(index * 400);
      for (let cycle = 0; cycle < cyclesPerLane; cycle++) {
        const config: ScheduleChildConfig =
          index === 0 ? { connection, workerQnames: ["cycles"] } : { connection, schedulerQnames: ["cycles"], capMs: 5_000 };
        const process = fleet.spawn(`lane${index}.${cycle}`, config);
        await process.ready();
        await delay(500 + ((index * 7 + cycle * 3) % 5) * 200);
        if (cycle % 2 === 0) await process.stop();
        else await process.kill();
      }
    };
    await Promise.all([...Array(lanes).keys()].map(lane));
    expect(fleet.problems()).to.deep.equal([]);

    const messages = await scheduledMessages(client, ns, "cycles");
    expect(duplicateSlots(messages)).to.deep.equal([]);
    const stored = await storedField("cycles", "tick");
    const [info] = await rsmq.listSchedulesAsync({ qname: "cycles" });
    expect(info.count).to.equal(messages.length);
    expect(info.overlapped).to.equal(0);
    // Every slot from the anchor to the last handled: fired, or missed while no process ran (and counted).
    const slots = gridSlots(stored.anchor, 1000, stored.anchor, stored.last);
    expect(info.count + info.missed).to.equal(slots.length);
    for (const message of messages) expect(slots).to.include(message.slot);
    expect(messages.length).to.be.at.least(5);
  });
});
