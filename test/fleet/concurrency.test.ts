/**
 * A concurrency limit the whole fleet obeys: 4 processes of one Worker each, at concurrency 5,
 * under a limit of 3, with handlers of 200 ms. The number running, from the handlers' own start
 * and end times (a handler runs inside its message's lease), never exceeds 3 and reaches 3; every
 * message is handled once. A delete from another process frees a slot at once (its `~free:` wake),
 * for a Worker held at the limit elsewhere. Then the fault: a process holding all 3 slots killed (SIGKILL) frees
 * them when their leases end, at most one vt after the kill: the other process, held back at the
 * limit meanwhile, resumes within vt plus a round trip.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import type { FleetChildConfig, FleetLine } from "../support/fleet-child";
import { Fleet } from "../support/fleet";
import type { FleetProcess } from "../support/fleet";
import { connectionOptions, uniqueNs } from "../support/server";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

// One server: the limit's scripts run on the cluster in test/operations/; this file is about
// Workers in several processes.
runsOn("single");

const LIMIT = 3;
const MESSAGES = 30;
/** Seconds: how long a killed process' leases outlive it at most (its extensions every vt/2 included). */
const VT = 2;
/** How late after a lease's end a held-back Worker may take the freed slot: its receive's round trip and a timer's lateness. */
const ROUND_TRIP_MS = 500;

/** The most handlers running at once, from every handler's [start, end] across `processes`. */
function mostRunning(processes: FleetProcess[]): number {
  const edges: Array<[number, number]> = [];
  for (const p of processes) {
    // Keyed by worker and id: a message handled twice would show as two runs.
    const starts = new Map(p.named("start").map((line) => [`${line.worker}:${line.id}`, line.at]));
    for (const end of p.named("end")) {
      edges.push([starts.get(`${end.worker}:${end.id}`)!, 1], [end.at, -1]);
    }
  }
  // An end before a start at the same ms: a slot freed, then taken.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let running = 0;
  let most = 0;
  for (const [, step] of edges) most = Math.max(most, (running += step));
  return most;
}

/** The distinct message ids handled across `processes`. */
function handledIds(processes: FleetProcess[]): Set<string> {
  return new Set(processes.flatMap((p) => p.named("handled")).map((line: FleetLine) => line.id!));
}

describe("fleet: a concurrency limit the whole fleet obeys", function () {
  this.timeout(60_000);
  const fleet = new Fleet();
  let rsmq: RedisSMQ;
  let config: FleetChildConfig;

  beforeEach(async () => {
    const ns = uniqueNs("fconc");
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
    await rsmq.setConcurrencyAsync({ qname: "q", max: LIMIT });
    config = { connection: connectionOptions(ns), qname: "q", workers: 1, concurrency: 5, vt: VT, maxIdleSleepMs: 5000 };
  });
  afterEach(async () => {
    await fleet.kill();
    await rsmq.quitAsync();
  });

  it(`limit ${LIMIT}, 4 processes at concurrency 5, handlers of 200 ms: never more than ${LIMIT} running, and ${LIMIT} reached; each message handled once`, async () => {
    const busy = { ...config, handlerMs: 200 };
    const processes = await Promise.all(["A", "B", "C", "D"].map((label) => fleet.start(label, busy)));
    const sent = await rsmq.sendMessagesAsync({ qname: "q", messages: Array.from({ length: MESSAGES }, (_, i) => ({ message: `m${i}` })) });
    const ids = sent.map((entry) => entry.id!);
    await waitFor(() => handledIds(processes).size === MESSAGES, `all ${MESSAGES} messages handled`, 30_000);
    const starts = processes.flatMap((p) => p.named("start"));
    expect(starts, "each message started once").to.have.length(MESSAGES);
    expect([...handledIds(processes)]).to.have.members(ids);
    expect(mostRunning(processes)).to.equal(LIMIT);
    // The limit bound: Workers were held back at it (their receives answered `maxed`).
    const maxed = processes
      .flatMap((p) => p.named("heldBack"))
      .filter((line) => (line.args?.[0] as { reason?: string }).reason === "maxed");
    expect(maxed.length).to.be.above(0);
    expect(processes.flatMap((p) => p.named("error"))).to.deep.equal([]);
    const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
    expect(attributes).to.deep.include({ msgs: 0, concurrency: LIMIT });
  });

  it("a delete from another process frees a slot at once: the Worker held at the limit elsewhere takes it, long before any vt or cap ends", async () => {
    // Only the delete's `~free:` wake can end B's sleep within the test: vt and cap are 30 s.
    const slow = { ...config, vt: 30, maxIdleSleepMs: 30_000 };
    // A at concurrency 3 has no slot of its own left to take the freed one with: only B can.
    const holder = await fleet.start("A", { ...slow, concurrency: LIMIT, gated: true });
    await rsmq.sendMessagesAsync({ qname: "q", messages: Array.from({ length: 4 }, (_, i) => ({ message: `m${i}` })) });
    await waitFor(() => holder.named("start").length === LIMIT, `A to hold ${LIMIT} messages`);
    const other = await fleet.start("B", slow);
    await waitFor(() => other.named("heldBack").length > 0, "B held back at the limit");
    const [cancelled] = holder.named("start");
    expect(await rsmq.deleteMessageAsync({ qname: "q", id: cancelled.id! })).to.equal(1);
    await waitFor(() => other.named("start").length === 1, "B to take the freed slot", 5_000);
    expect(other.named("start")[0].id).to.not.be.oneOf(holder.named("start").map((line) => line.id));
    // A learns of the cancel at its next extension (half its vt): not waited for here.
  });

  it(`a process holding all ${LIMIT} slots killed (SIGKILL): the others resume within vt (${VT} s) plus a round trip`, async () => {
    const holder = await fleet.start("A", { ...config, gated: true });
    const sent = await rsmq.sendMessagesAsync({ qname: "q", messages: Array.from({ length: 6 }, (_, i) => ({ message: `m${i}` })) });
    await waitFor(() => holder.named("start").length === LIMIT, `A to hold ${LIMIT} messages`);
    const other = await fleet.start("B", config);
    await waitFor(() => other.named("heldBack").length > 0, "B held back at the limit");
    expect(other.named("start")).to.deep.equal([]);
    const killedAt = Date.now();
    await holder.kill();
    await waitFor(() => other.named("start").length > 0, "B to take a freed slot", 10_000);
    const resumedAt = Math.min(...other.named("start").map((line) => line.at));
    expect(resumedAt - killedAt).to.be.below(VT * 1000 + ROUND_TRIP_MS);
    // Every message is handled by B in the end, the three A held included.
    await waitFor(() => sent.every((entry) => handledIds([other]).has(entry.id!)), "every message handled by B", 15_000);
    expect(mostRunning([other])).to.be.at.most(LIMIT);
  });
});
