/**
 * A rate limit the whole fleet obeys: 4 Workers in 2 processes drain 200 messages under
 * `10 per 1000 ms` (burst 1). Each message's first receive time (`fr`, the server's clock) is
 * when the limit let it through: no 1000 ms window [t, t + 1000) holds more than max + burst = 11,
 * and the whole takes no longer than the limit requires (198 intervals: 19.8 s) plus one window.
 * With burst 0 the windows hold too, and takes are never closer than one interval.
 * Then the faults: a process killed (SIGKILL) while rate-limited or while paused loses nothing;
 * every message is still handled once the fleet is restarted or resumed.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import type { FleetChildConfig, FleetLine } from "../support/fleet-child";
import { Fleet } from "../support/fleet";
import type { FleetProcess } from "../support/fleet";
import { connectionOptions, uniqueNs } from "../support/server";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

// One server: the limit's scripts run on the cluster in test/gates/rate-limit.test.ts; this file is
// about Workers in several processes, whose 30 s of waiting the cluster pass would only repeat.
runsOn("single");

const MAX = 10;
const PER_MS = 1000;
const MESSAGES = 200;
/**
 * One more at once after a quiet spell: it also lets a late taker's slot be used by the next one,
 * so the fleet's own lateness (a timer, a round trip, the jitter) does not add up over 200 takes.
 * With burst 0 every ms a taker comes late is lost for good (GCRA keeps no memory of it).
 */
const BURST = 1;

/** The most first receives any window [t, t + windowMs) holds, t at each receive. */
function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((x, y) => x - y);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && sorted[j] < sorted[i] + windowMs) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

/** The distinct message ids handled across `processes`. */
function handledIds(processes: FleetProcess[]): Set<string> {
  return new Set(processes.flatMap((p) => p.named("handled")).map((line: FleetLine) => line.id!));
}

/** `count` messages, sent in batches of at most 1000. */
async function sendMany(rsmq: RedisSMQ, count: number): Promise<string[]> {
  const sent = await rsmq.sendMessagesAsync({ qname: "q", messages: Array.from({ length: count }, (_, i) => ({ message: `m${i}` })) });
  return sent.map((entry) => entry.id!);
}

describe("fleet: a rate limit the whole fleet obeys", function () {
  this.timeout(90_000);
  const fleet = new Fleet();
  let rsmq: RedisSMQ;
  let config: FleetChildConfig;

  beforeEach(async () => {
    const ns = uniqueNs("frate");
    rsmq = new RedisSMQ(connectionOptions(ns));
    await rsmq.createQueueAsync({ qname: "q" });
    config = { connection: connectionOptions(ns), qname: "q", workers: 2, concurrency: 2 };
  });
  afterEach(async () => {
    await fleet.kill();
    await rsmq.quitAsync();
  });

  it(`${MAX}/${PER_MS} ms burst ${BURST}, 4 Workers in 2 processes, ${MESSAGES} messages: no ${PER_MS} ms window holds more than ${MAX + BURST}; done within what the limit requires plus one window`, async () => {
    await rsmq.setRateLimitAsync({ qname: "q", limits: [{ max: MAX, perMs: PER_MS, burst: BURST }] });
    const ids = await sendMany(rsmq, MESSAGES);
    const processes = [await fleet.start("A", config), await fleet.start("B", config)];
    await waitFor(() => handledIds(processes).size === MESSAGES, `all ${MESSAGES} messages handled`, 60_000);
    const starts = processes.flatMap((p) => p.named("start"));
    expect(new Set(starts.map((line) => line.id))).to.have.property("size", MESSAGES);
    expect([...handledIds(processes)]).to.have.members(ids);
    const firstReceives = starts.filter((line) => line.rc === 1).map((line) => line.fr!);
    expect(firstReceives).to.have.length(MESSAGES);
    expect(busiestWindow(firstReceives, PER_MS)).to.be.at.most(MAX + BURST);
    // The first 1 + burst at once, then one per interval: never faster, and late by at most one window.
    const required = ((MESSAGES - 1 - BURST) * PER_MS) / MAX;
    const span = Math.max(...firstReceives) - Math.min(...firstReceives);
    expect(span).to.be.within(required, required + PER_MS);
    // Both processes took their share, and were held back by the limit between takes.
    for (const p of processes) {
      expect(p.named("start").length, p.label).to.be.above(0);
      expect(p.named("heldBack").length, p.label).to.be.above(0);
    }
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);
  });

  it(`burst 0: ${MAX}/${PER_MS} ms holds at every window and is never faster than one per interval`, async () => {
    await rsmq.setRateLimitAsync({ qname: "q", limits: [{ max: MAX, perMs: PER_MS, burst: 0 }] });
    await sendMany(rsmq, 30);
    const processes = [await fleet.start("A", config), await fleet.start("B", config)];
    await waitFor(() => handledIds(processes).size === 30, "all 30 messages handled", 30_000);
    const firstReceives = processes.flatMap((p) => p.named("start")).map((line) => line.fr!);
    expect(firstReceives).to.have.length(30);
    expect(busiestWindow(firstReceives, PER_MS)).to.be.at.most(MAX);
    const sorted = [...firstReceives].sort((x, y) => x - y);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i] - sorted[i - 1]).to.be.at.least(PER_MS / MAX - 1);
  });

  it("a process killed (SIGKILL) while rate-limited loses nothing: every message is handled after a restart", async () => {
    await rsmq.setRateLimitAsync({ qname: "q", limits: [{ max: 5, perMs: 1000 }] });
    const ids = await sendMany(rsmq, 20);
    const short = { ...config, vt: 2 };
    const a = await fleet.start("A", short);
    const b = await fleet.start("B", short);
    await waitFor(() => a.named("heldBack").length > 0 && a.named("start").length > 0, "A to take a message and be held back by the limit");
    await a.kill();
    const a2 = await fleet.start("A2", short);
    await waitFor(() => ids.every((id) => handledIds([a, b, a2]).has(id)), "every message handled", 30_000);
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);
  });

  it("a process killed (SIGKILL) while paused, its handlers unfinished, loses nothing: every message is handled after the resume", async () => {
    const gated = { ...config, workers: 1, vt: 2, gated: true };
    const a = await fleet.start("A", gated);
    const held = await sendMany(rsmq, 2);
    await waitFor(() => a.named("start").length === 2, "A to hold both messages");
    await rsmq.pauseQueueAsync({ qname: "q" });
    const during = await sendMany(rsmq, 3);
    await a.kill();
    const b = await fleet.start("B", config);
    await waitFor(() => b.named("heldBack").length > 0, "B to find the pause");
    expect(b.named("start")).to.deep.equal([]);
    await rsmq.resumeQueueAsync({ qname: "q" });
    await waitFor(() => [...held, ...during].every((id) => handledIds([b]).has(id)), "every message handled by B", 30_000);
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);
  });
});
