/**
 * wakeableSleep without Redis: it ends on its timer, on wake(), on an AbortSignal, or earlier
 * after shortenTo(); and a sleep longer than Node's timer limit (2^31-1 ms) does not fire at once
 * (Node would run such a timer after 1 ms), whether the length comes from `ms` or from the clock.
 */
import { expect } from "chai";
import { MAX_TIMER_MS, wakeableSleep } from "../../lib/worker/wakeable-sleep";
import type { WakeReason } from "../../lib/worker/wakeable-sleep";
import { delay } from "../support/worker";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

/** Whether `promise` is still pending after `ms`. */
async function pendingAfter(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const marker = Symbol("pending");
  const winner = await Promise.race([promise, delay(ms).then(() => marker)]);
  return winner === marker;
}

describe("wakeableSleep", () => {
  it("ends with 'timeout' after its time", async () => {
    const sleep = wakeableSleep(20);
    expect(await sleep.done).to.equal("timeout");
  });

  it("ends at once with 'timeout' for 0 or a negative length", async () => {
    expect(await wakeableSleep(0).done).to.equal("timeout");
    expect(await wakeableSleep(-5).done).to.equal("timeout");
  });

  it("ends with 'woken' on wake(), and a later wake or abort changes nothing", async () => {
    const controller = new AbortController();
    const sleep = wakeableSleep(60_000, controller.signal);
    expect(await pendingAfter(sleep.done, 20)).to.equal(true);
    sleep.wake();
    controller.abort();
    sleep.wake();
    expect(await sleep.done).to.equal("woken");
  });

  it("ends with 'aborted' when its signal aborts, and removes its abort listener", async () => {
    const controller = new AbortController();
    const sleep = wakeableSleep(60_000, controller.signal);
    controller.abort();
    expect(await sleep.done).to.equal("aborted");

    // A signal reused by many sleeps must not collect listeners from those that ended.
    const shared = new AbortController();
    let added = 0;
    let removed = 0;
    const signal = shared.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => ((added += 1), add(...args))) as typeof add;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => ((removed += 1), remove(...args))) as typeof remove;
    for (let i = 0; i < 5; i += 1) {
      const short = wakeableSleep(1, signal);
      await short.done;
    }
    const woken = wakeableSleep(60_000, signal);
    woken.wake();
    await woken.done;
    expect(added).to.equal(6);
    expect(removed).to.equal(6);
  });

  it("ends at once with 'aborted' when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await wakeableSleep(60_000, controller.signal).done).to.equal("aborted");
  });

  it("does not fire at once for a length beyond 2^31-1 ms, and can still be woken", async () => {
    for (const ms of [MAX_TIMER_MS + 1, 2 ** 32 + 5, 9_999_999_000]) {
      const sleep = wakeableSleep(ms);
      expect(await pendingAfter(sleep.done, 30), `${ms} ms`).to.equal(true);
      sleep.wake();
      expect(await sleep.done).to.equal("woken");
    }
  });

  it("re-checks the clock when a chained timer fires, so it never ends early", async () => {
    // An injected clock that stands still: the end stays 50 ms away however long we wait, until
    // the clock is moved past it. Timers are chained on `now`, not on elapsed wall time.
    let clock = 1_000_000;
    const sleep = wakeableSleep(50, undefined, () => clock);
    expect(await pendingAfter(sleep.done, 120)).to.equal(true);
    // The timer keeps re-arming while the clock stands still; once the clock passes the end,
    // the next firing ends it.
    clock += 50;
    expect(await sleep.done).to.equal("timeout");
  });

  it("shortenTo brings the end forward, never back", async () => {
    const longer = wakeableSleep(60_000);
    longer.shortenTo(10);
    expect(await longer.done).to.equal("timeout");

    const kept = wakeableSleep(20);
    kept.shortenTo(60_000); // later than the current end: ignored
    expect(await kept.done).to.equal("timeout");
  });

  it("shortenTo on a sleep beyond the timer limit ends it at the new, near time", async () => {
    const sleep = wakeableSleep(9_999_999_000);
    expect(await pendingAfter(sleep.done, 20)).to.equal(true);
    sleep.shortenTo(10);
    const reason: WakeReason = await sleep.done;
    expect(reason).to.equal("timeout");
  });

  it("shortenTo after the end changes nothing", async () => {
    const sleep = wakeableSleep(60_000);
    sleep.wake();
    sleep.shortenTo(0);
    expect(await sleep.done).to.equal("woken");
  });
});
