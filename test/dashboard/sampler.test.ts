/**
 * The shared sampler: reads only while a stream listens, one reading per interval for any number
 * of listeners, a fresh reading shared by requests without a stream, and a failed reading told as
 * such (and healed by the next). The reading function here is the test's own counter: what is
 * under test is when the sampler calls it, not Redis (test/dashboard/queue-board.test.ts reads Redis).
 */
import { expect } from "chai";
import { Sampler } from "../../lib/dashboard/live/sampler";
import type { SamplerState } from "../../lib/dashboard/live/sampler";
import type { Reading } from "../../lib/queue-state/read-shapes";
import { CostMeter } from "../../lib/queue-state/cost-meter";
import { waitFor } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single");

/** A read that counts its calls and answers `now` = the call's number; fails while `failing` is set. */
function countingRead() {
  const state = { calls: 0, failing: undefined as Error | undefined };
  const read = async (): Promise<Reading> => {
    state.calls += 1;
    if (state.failing) throw state.failing;
    return { now: state.calls, queues: [], schedules: [] };
  };
  return { state, read };
}

/** Timers the test fires by hand: what is scheduled, and a way to run it. */
function manualTimers() {
  const pending: Array<{ ms: number; run: () => void }> = [];
  const after = (ms: number, run: () => void) => {
    const timer = { ms, run };
    pending.push(timer);
    return () => pending.splice(pending.indexOf(timer) >>> 0, 1);
  };
  return { pending, after, fire: () => pending.splice(0).forEach((timer) => timer.run()) };
}

describe("dashboard sampler", () => {
  let sampler: Sampler | undefined;
  afterEach(() => sampler?.close());

  it("reads nothing until a stream listens, and stops when the last one leaves", async () => {
    const { state, read } = countingRead();
    const timers = manualTimers();
    sampler = new Sampler(read, { intervalMs: 2000, after: timers.after });
    expect(state.calls, "reads with no listener").to.equal(0);
    expect(timers.pending, "ticks scheduled with no listener").to.deep.equal([]);
    const seen: SamplerState[] = [];
    const leave = sampler.subscribe((update) => seen.push(update));
    await waitFor(() => seen.length === 1, "the first reading");
    expect(timers.pending.map((timer) => timer.ms)).to.deep.equal([2000]);
    timers.fire();
    await waitFor(() => seen.length === 2, "the second reading");
    leave();
    expect(timers.pending, "ticks scheduled after the last listener left").to.deep.equal([]);
    expect(state.calls).to.equal(2);
    expect(sampler.streams).to.equal(0);
  });

  it("gives every listener the same readings: the reads do not grow with listeners", async () => {
    const { state, read } = countingRead();
    const timers = manualTimers();
    sampler = new Sampler(read, { intervalMs: 2000, after: timers.after });
    const seen: number[][] = [[], [], [], [], []];
    const leaves = [sampler.subscribe((update) => seen[0].push(update.reading!.now))];
    await waitFor(() => seen[0].length === 1, "the first reading");
    // Later listeners get the latest reading at once, with no read of their own.
    for (const list of seen.slice(1)) leaves.push(sampler.subscribe((update) => list.push(update.reading!.now)));
    for (let tick = 0; tick < 3; tick++) {
      expect(timers.pending.length, "ticks scheduled").to.equal(1);
      timers.fire();
      await waitFor(() => seen[0].length === tick + 2, `reading ${tick + 2}`);
    }
    for (const leave of leaves) leave();
    expect(state.calls).to.equal(4);
    for (const list of seen) expect(list).to.deep.equal([1, 2, 3, 4]);
  });

  it("shares one reading among requests while it is fresh, and one under way", async () => {
    const { state, read } = countingRead();
    let now = 0;
    sampler = new Sampler(read, { intervalMs: 1000, now: () => now });
    const [a, b] = await Promise.all([sampler.latest(), sampler.latest()]);
    expect(state.calls).to.equal(1);
    expect(a).to.equal(b);
    now = 999;
    await sampler.latest();
    expect(state.calls, "reads while fresh").to.equal(1);
    now = 1000;
    expect((await sampler.latest()).reading!.now).to.equal(2);
  });

  it("tells a failed reading with the error and since when, keeps the last good one, and heals", async () => {
    const { state, read } = countingRead();
    let now = 0;
    sampler = new Sampler(read, { intervalMs: 10, now: () => now });
    await sampler.latest();
    state.failing = new Error("connect ECONNREFUSED");
    now = 100;
    const failed = await sampler.latest();
    expect(failed.health).to.deep.equal({ ok: false, error: "connect ECONNREFUSED", since: 100 });
    expect(failed.reading!.now).to.equal(1);
    now = 200;
    expect((await sampler.latest()).health).to.deep.include({ since: 100 });
    state.failing = undefined;
    now = 300;
    expect((await sampler.latest()).health).to.deep.equal({ ok: true });
  });

  it("tells a reading that is late as a failure, every interval while it lasts, and heals when it answers", async () => {
    let answer: (reading: Reading) => void = () => undefined;
    let calls = 0;
    const read = (): Promise<Reading> => {
      calls += 1;
      return calls === 1 ? Promise.resolve({ now: 1, queues: [], schedules: [] }) : new Promise((resolve) => (answer = resolve));
    };
    const timers = manualTimers();
    let now = 0;
    sampler = new Sampler(read, { intervalMs: 1000, lateAfterMs: 3000, after: timers.after, now: () => now });
    const seen: SamplerState[] = [];
    sampler.subscribe((update) => seen.push(update));
    await waitFor(() => seen.length === 1, "the first reading");
    now = 1000;
    timers.fire(); // the next tick: its reading hangs
    expect(
      timers.pending.map((timer) => timer.ms),
      "the late bound",
    ).to.deep.equal([3000]);
    // A request meanwhile waits for the reading, or for it to be late.
    const request = sampler.latest();
    now = 4000;
    timers.fire();
    expect(seen[1].health).to.deep.equal({ ok: false, error: "Redis has not answered for 3 s", since: 1000 });
    expect(seen[1].reading!.now, "the last good reading, kept").to.equal(1);
    expect((await request).health.ok).to.equal(false);
    now = 5000;
    timers.fire();
    expect(seen[2].health).to.deep.equal({ ok: false, error: "Redis has not answered for 4 s", since: 1000 });
    answer({ now: 2, queues: [], schedules: [] });
    await waitFor(() => seen.length === 4, "the answer");
    expect(seen[3].health).to.deep.equal({ ok: true });
    expect(
      timers.pending.map((timer) => timer.ms),
      "the next tick only",
    ).to.deep.equal([1000]);
  });

  it("refuses listeners once closed", () => {
    sampler = new Sampler(countingRead().read, { intervalMs: 10 });
    sampler.close();
    expect(() => sampler!.subscribe(() => undefined)).to.throw(/closed/);
  });
});

describe("dashboard cost meter", () => {
  it("counts every command, and a per-second rate over the last minute that falls to 0", () => {
    let now = 1_000_000;
    const meter = new CostMeter(() => now);
    expect(meter.reading(0)).to.deep.equal({ commandsPerSecond: 0, commands: 0, streams: 0 });
    for (let second = 0; second < 30; second++) {
      meter.add(2);
      now += 1000;
    }
    expect(meter.reading(3)).to.deep.equal({ commandsPerSecond: 1, commands: 60, streams: 3 });
    now += 60_000;
    expect(meter.reading(0)).to.deep.equal({ commandsPerSecond: 0, commands: 60, streams: 0 });
  });
});
