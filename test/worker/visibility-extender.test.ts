/**
 * The visibility extender without Redis, on a fake clock: each message in hand is hidden for
 * another vt at its own halfway point, however many are in hand and whatever their vts, while
 * one sleep at most serves them all; a message leaving cancels nothing of the others'; after the
 * last one leaves, the sleep ends once with nothing due and is not armed again; stopAll cancels it.
 */
import { expect } from "chai";
import { VisibilityExtender } from "../../lib/worker/visibility-extender";
import { FakeClock, settle } from "../support/fake-clock";
import { held } from "../support/fake-queue";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const T0 = 1_700_000_000_000;

/** An extender whose hides are recorded as "<ms since T0> <id> <ms>", with the replies the test queues (then 1). */
function recordingExtender() {
  const clock = new FakeClock(T0);
  const calls: string[] = [];
  const replies: Array<0 | 1 | Error | Promise<0 | 1>> = [];
  const errors: unknown[] = [];
  let extensions = 0;
  const hide = (id: string, ms: number): Promise<0 | 1> => {
    calls.push(`${clock.now() - T0} ${id} ${ms}`);
    const reply = replies.shift() ?? 1;
    return reply instanceof Error ? Promise.reject(reply) : Promise.resolve(reply);
  };
  const extender = new VisibilityExtender(
    hide,
    clock,
    () => void (extensions += 1),
    (error) => errors.push(error),
  );
  return { clock, calls, replies, errors, extender, extensions: () => extensions };
}

/** The sleep left armed after the last message left ends with no hide, and no sleep follows it. */
async function endsWithNothingDue(clock: FakeClock, calls: string[]): Promise<void> {
  const hidesBefore = calls.length;
  expect(clock.pending).to.have.length(1);
  await clock.advance(clock.pending[0].endsAt - clock.now());
  expect(calls).to.have.length(hidesBefore);
  expect(clock.pending).to.deep.equal([]);
}

describe("VisibilityExtender (fake clock)", () => {
  it("several messages with different vts: each is hidden again at its own halfway point, one sleep for all", async () => {
    const { clock, calls, extender, extensions } = recordingExtender();
    const a = extender.keepHidden("a", 2);
    const b = extender.keepHidden("b", 3);
    await clock.advance(500);
    const c = extender.keepHidden("c", 1);
    expect(clock.pending).to.have.length(1);
    expect(a.hiddenUntil() - T0).to.equal(2000);
    expect(c.hiddenUntil() - T0).to.equal(1500);

    await clock.advance(3500);
    // a every 1000 ms, b every 1500 ms, c every 500 ms from its start at 500.
    expect(calls).to.deep.equal([
      "1000 a 2000",
      "1000 c 1000",
      "1500 b 3000",
      "1500 c 1000",
      "2000 a 2000",
      "2000 c 1000",
      "2500 c 1000",
      "3000 a 2000",
      "3000 b 3000",
      "3000 c 1000",
      "3500 c 1000",
      "4000 a 2000",
      "4000 c 1000",
    ]);
    expect(extensions()).to.equal(13);
    expect(a.hiddenUntil() - T0).to.equal(6000);
    expect(b.hiddenUntil() - T0).to.equal(6000);
    expect(c.hiddenUntil() - T0).to.equal(5000);
    expect(clock.pending).to.have.length(1);
    expect(clock.pending[0].endsAt - T0).to.equal(4500);

    a.stop();
    b.stop();
    c.stop();
    await endsWithNothingDue(clock, calls);
  });

  it("a message leaving cancels nothing of the others', even when the sleep was armed for it", async () => {
    const { clock, calls, extender } = recordingExtender();
    const short = extender.keepHidden("short", 2);
    const long = extender.keepHidden("long", 4);
    await clock.advance(500);
    short.stop();
    expect(clock.pending).to.have.length(1);
    await clock.advance(3500);
    expect(calls).to.deep.equal(["2000 long 4000", "4000 long 4000"]);
    expect(long.hiddenUntil() - T0).to.equal(8000);
    // The sleep armed for `short` ended with nothing due and was followed by one for `long`.
    expect(clock.sleeps.map((sleep) => sleep.endsAt - T0)).to.deep.equal([1000, 2000, 4000, 6000]);
    long.stop();
    await endsWithNothingDue(clock, calls);
  });

  it("a message due after the armed sleep starts no sleep; an earlier one brings the same sleep forward", async () => {
    const { clock, extender } = recordingExtender();
    const first = extender.keepHidden("first", 30);
    extender.keepHidden("same", 30);
    extender.keepHidden("later", 60);
    expect(clock.sleeps).to.have.length(1);
    extender.keepHidden("sooner", 2);
    expect(clock.sleeps).to.have.length(1);
    expect(clock.sleeps[0].endsAt - T0).to.equal(1000);
    first.stop();
    expect(clock.pending).to.have.length(1);
    // stopAll (the worker stops) cancels the sleep at once: no timer keeps a stopped worker's process alive.
    extender.stopAll();
    expect(clock.pending).to.deep.equal([]);
  });

  it("vt 0 extends nothing and arms no sleep; its hiddenUntil is the time it was taken", async () => {
    const { clock, calls, extender } = recordingExtender();
    const zero = extender.keepHidden("zero", 0);
    expect(clock.sleeps).to.deep.equal([]);
    await clock.advance(10_000);
    expect(calls).to.deep.equal([]);
    expect(zero.hiddenUntil()).to.equal(T0);
    zero.stop();
  });

  it("a message gone stops alone; a failed hide is reported and retried half a vt later; the others go on", async () => {
    const { clock, calls, replies, errors, extender, extensions } = recordingExtender();
    const failure = new Error("READONLY");
    replies.push(0, failure);
    const gone = extender.keepHidden("gone", 2);
    const flaky = extender.keepHidden("flaky", 2);
    await clock.advance(2000);
    expect(calls).to.deep.equal(["1000 gone 2000", "1000 flaky 2000", "2000 flaky 2000"]);
    expect(errors).to.deep.equal([failure]);
    expect(extensions()).to.equal(1);
    expect(gone.hiddenUntil() - T0).to.equal(2000);
    expect(flaky.hiddenUntil() - T0).to.equal(4000);
    flaky.stop();
    await endsWithNothingDue(clock, calls);
  });

  it("a message that leaves while its hide is in flight is not rescheduled or counted; the next one is still due on time", async () => {
    const { clock, calls, replies, extender, extensions } = recordingExtender();
    const slow = held<0 | 1>();
    replies.push(slow.promise);
    const leaving = extender.keepHidden("leaving", 2);
    const staying = extender.keepHidden("staying", 4);
    await clock.advance(1000);
    leaving.stop();
    slow.resolve(1);
    await settle();
    expect(extensions()).to.equal(0);
    expect(leaving.hiddenUntil() - T0).to.equal(2000);
    await clock.advance(1000);
    expect(calls).to.deep.equal(["1000 leaving 2000", "2000 staying 4000"]);
    expect(extensions()).to.equal(1);
    staying.stop();
    await endsWithNothingDue(clock, calls);
  });
});
