/**
 * Pause and resume across processes: Workers in two processes (test/support/fleet.ts) take nothing
 * once pauseQueueAsync has returned, while the handlers they hold finish and their deletes land; a
 * resume reaches both at once (their cap is 30 s, far beyond the bound, so only its wake can
 * explain it); the pause lives in Redis, so restarted processes find it; a pause with `until`
 * ends by itself on the server's clock.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import RedisSMQ = require("../../lib/index");
import type { SentEntry } from "../../lib/types";
import type { FleetChildConfig } from "../support/fleet-child";
import { Fleet } from "../support/fleet";
import type { FleetProcess } from "../support/fleet";
import { serverNowMs } from "../support/inspect";
import { connectionOptions, plainClient, uniqueNs } from "../support/server";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster");

/** Far beyond every bound below: a Worker that acts within one was woken, not at its cap. */
const CAP = 30_000;
/** How soon both processes must take a message after a resume returned, on a loaded machine. */
const RESUME_BOUND_MS = 5_000;

/** The ids a process has started a handler for. */
function started(fleetProcess: FleetProcess): string[] {
  return fleetProcess.named("start").map((line) => line.id!);
}

describe("fleet: pause and resume across processes", function () {
  this.timeout(60_000);
  const fleet = new Fleet();
  let ns: string;
  let rsmq: RedisSMQ;
  let client: RedisClientType;
  let config: FleetChildConfig;

  beforeEach(async () => {
    ns = uniqueNs("fpause");
    rsmq = new RedisSMQ(connectionOptions(ns));
    client = await plainClient();
    await rsmq.createQueueAsync({ qname: "q" });
    config = { connection: connectionOptions(ns), qname: "q", workers: 1, concurrency: 1, maxIdleSleepMs: CAP };
  });
  afterEach(async () => {
    await fleet.kill();
    await rsmq.quitAsync();
    await client.quit();
  });

  it("takes nothing once the pause returned, while held handlers finish and their deletes land; a resume reaches both processes at once", async () => {
    const a = await fleet.start("A", { ...config, gated: true });
    const b = await fleet.start("B", { ...config, gated: true });
    const before = await rsmq.sendMessagesAsync({ qname: "q", messages: [{ message: "m1" }, { message: "m2" }] });
    await waitFor(() => started(a).length === 1 && started(b).length === 1, "each process to hold one message");

    expect(await rsmq.pauseQueueAsync({ qname: "q" })).to.equal(1);
    const pausedAt = await serverNowMs(client);
    const during = await rsmq.sendMessagesAsync({ qname: "q", messages: ["p1", "p2", "p3", "p4"].map((message) => ({ message })) });
    a.release();
    b.release();
    // Each freed slot polls once more: the poll finds the pause (and carries or follows the delete).
    await waitFor(
      () => [a, b].every((p) => p.named("handled").length === 1 && p.named("heldBack").length >= 1),
      "both handled and held back",
    );
    const attributes = await rsmq.getQueueAttributesAsync({ qname: "q" });
    expect(attributes.msgs, "the held messages are deleted, the new ones wait").to.equal(4);
    for (const id of idsOf(before)) expect(await rsmq.peekMessageAsync({ qname: "q", id })).to.deep.equal({});
    expect([...started(a), ...started(b)]).to.have.members(idsOf(before));
    for (const line of [...a.named("start"), ...b.named("start")]) expect(line.fr!).to.be.at.most(pausedAt);
    const reasons = new Set([a, b].flatMap((p) => p.named("heldBack")).map((line) => (line.args![0] as { reason: string }).reason));
    expect([...reasons]).to.deep.equal(["paused"]);

    const resumeCalled = Date.now();
    expect(await rsmq.resumeQueueAsync({ qname: "q" })).to.equal(1);
    await waitFor(
      () => started(a).length === 2 && started(b).length === 2,
      "both processes to take a message after the resume",
      RESUME_BOUND_MS,
    );
    expect(Date.now() - resumeCalled).to.be.below(CAP);
    const afterResume = [...started(a), ...started(b)].filter((id) => !idsOf(before).includes(id));
    expect(idsOf(during)).to.include.members(afterResume);
  });

  it("the pause survives restarting every process; a resume then wakes the new ones at once", async () => {
    await rsmq.pauseQueueAsync({ qname: "q" });
    await rsmq.sendMessagesAsync({ qname: "q", messages: ["a", "b", "c"].map((message) => ({ message })) });
    const first = [await fleet.start("A", config), await fleet.start("B", config)];
    await waitFor(() => first.every((p) => p.named("heldBack").length >= 1), "the first processes to find the pause");
    await Promise.all(first.map((p) => p.stop()));
    const second = [await fleet.start("A2", config), await fleet.start("B2", config)];
    await waitFor(() => second.every((p) => p.named("heldBack").length >= 1), "the restarted processes to find the pause");
    expect([...first, ...second].flatMap(started)).to.deep.equal([]);
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(3);

    expect(await rsmq.resumeQueueAsync({ qname: "q" })).to.equal(1);
    await waitFor(
      () => second.flatMap((p) => p.named("handled")).length === 3,
      "the three messages handled after the resume",
      RESUME_BOUND_MS,
    );
    expect((await rsmq.getQueueAttributesAsync({ qname: "q" })).msgs).to.equal(0);
  });

  it("`until` resumes by itself on the server's clock: nothing is taken before it, everything after", async () => {
    const processes = [await fleet.start("A", config), await fleet.start("B", config)];
    const until = (await serverNowMs(client)) + 2_000;
    expect(await rsmq.pauseQueueAsync({ qname: "q", until })).to.equal(1);
    // The sends wake both processes, whose receives find the pause and sleep until `until`.
    await rsmq.sendMessagesAsync({ qname: "q", messages: ["a", "b", "c", "d"].map((message) => ({ message })) });
    await waitFor(() => processes.every((p) => p.named("heldBack").length >= 1), "both processes to find the pause");
    await waitFor(
      () => processes.flatMap((p) => p.named("handled")).length === 4,
      "the four messages handled after `until`",
      2_000 + RESUME_BOUND_MS,
    );
    for (const line of processes.flatMap((p) => p.named("start"))) expect(line.fr!).to.be.at.least(until);
  });
});

/** The ids sendMessagesAsync stored. */
function idsOf(sent: SentEntry[]): string[] {
  return sent.map((entry) => entry.id!);
}
