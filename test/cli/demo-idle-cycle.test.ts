/**
 * The demo's idle window must hold one steady idle cycle: exactly one poll and nothing else of the
 * Worker's. The first idle sleep after a busy spell can hold the Worker's own heartbeat (a busy
 * Worker beats on its own 1.5 caps after its last beat), so the window starts only at a sleep at
 * the cap that follows a look which carried the heartbeat: its next own beat is due 1.5 caps
 * later, after the look that ends the window. The Worker runs on a fake queue and a fake clock;
 * the window's commands are counted on a real server.
 */
import { expect } from "chai";
import type { RedisClientType } from "redis";
import { IdleCycleWatch } from "../../lib/cli/demo/idle-cycle";
import type { Worker } from "../../lib/worker/worker";
import { settle } from "../support/fake-clock";
import { batch, fakeWorker, FakeQueue, held, message } from "../support/fake-queue";
import { singleServerClient } from "../support/server";
import { runsOn } from "../support/targets";
import { waitFor } from "../support/worker";

runsOn("single");

const CAP = 10_000;

/** A fake queue whose looks carry beats and that takes own beats, recording both. */
class BeatingQueue extends FakeQueue {
  override nextDue(beat?: unknown): ReturnType<FakeQueue["nextDue"]> {
    const answer = super.nextDue();
    if (beat !== undefined) this.calls[this.calls.length - 1] = "nextDue+beat";
    return answer;
  }

  beat(): Promise<void> {
    this.calls.push("beat");
    return Promise.resolve();
  }

  removeConsumer(): Promise<0 | 1> {
    return Promise.resolve(1);
  }
}

describe("CLI: demo: the idle window", () => {
  let client: RedisClientType;
  before(async () => (client = await singleServerClient()));
  after(() => client.quit());

  it("skips the idle sleep that holds the Worker's own beat and measures the cycle after a look that carried one", async () => {
    const gate = held<void>();
    const queue = new BeatingQueue();
    const { clock, emitter, loop, start } = fakeWorker({ maxIdleSleepMs: CAP, handler: () => gate.promise }, queue);
    queue.receives.push(batch([message("m1")]));
    const watch = new IdleCycleWatch(
      {
        on: emitter.on.bind(emitter),
        get counters() {
          return loop.counters;
        },
      } as unknown as Worker,
      CAP,
    );
    await start();
    let counting = false;
    const measured = watch.measure(client, new AbortController().signal, () => (counting = true));
    let settled = false;
    void measured.then(() => (settled = true));

    // Handled at 0.9 caps: the idle sleep to 1.9 caps holds the own beat (at 1.5 caps), and the look
    // that ends it carries none.
    await clock.advance(0.9 * CAP);
    gate.resolve();
    await settle();
    await clock.advance(CAP);
    await settle();
    expect(queue.calls.filter((call) => call === "beat" || call.startsWith("nextDue"))).to.deep.equal(["beat", "nextDue"]);
    expect(settled, "a window over the sleep that held the own beat").to.equal(false);

    // The next look (2.9 caps) carries the beat; the window is the cycle after it.
    await clock.advance(CAP);
    await settle();
    expect(queue.calls.slice(-1)).to.deep.equal(["nextDue+beat"]);
    const callsAtWindowStart = queue.calls.length;
    expect(settled).to.equal(false);
    // The window's first count (its start read from the server, in real time) before its poll.
    await waitFor(() => counting, "the window's first count");
    await clock.advance(CAP);
    await settle();
    const cycle = await measured;
    expect(cycle).to.include({ looks: 1, receives: 0, capMs: CAP });
    expect(queue.calls.slice(callsAtWindowStart)).to.deep.equal(["nextDue+beat"]);
    await loop.stop();
  });
});
