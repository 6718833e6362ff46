/**
 * How the loop leaves a call that hangs (a call waiting in the offline queue while Redis is down):
 * the call's outcome, or undefined as soon as the stop signal aborts; nothing left listening on
 * the signal, and no unhandled rejection from a call that fails after the stop.
 */
import { expect } from "chai";
import { getEventListeners } from "events";
import { unlessAborted } from "../../lib/worker/unless-aborted";
import { runsOn } from "../support/targets";

runsOn("single");
import { held } from "../support/fake-queue";

describe("Worker unlessAborted", () => {
  it("passes the call's value and error through, and stops listening on the signal", async () => {
    const stop = new AbortController();
    expect(await unlessAborted(Promise.resolve(7), stop.signal)).to.equal(7);
    const failure = await unlessAborted(Promise.reject(new Error("refused")), stop.signal).catch((error: Error) => error);
    expect((failure as Error).message).to.equal("refused");
    expect(getEventListeners(stop.signal, "abort")).to.have.length(0);
  });

  it("resolves undefined as soon as the signal aborts, while the call still hangs", async () => {
    const stop = new AbortController();
    const call = held<number>();
    const outcome = unlessAborted(call.promise, stop.signal);
    stop.abort();
    expect(await outcome).to.equal(undefined);
    call.resolve(7);
    expect(await outcome).to.equal(undefined);
  });

  it("a call that fails after the abort is dropped: no unhandled rejection", async () => {
    const stop = new AbortController();
    const call = held<number>();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const outcome = unlessAborted(call.promise, stop.signal);
      stop.abort();
      expect(await outcome).to.equal(undefined);
      call.reject(new Error("late"));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).to.deep.equal([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("with the signal aborted already, resolves undefined at once", async () => {
    const stop = new AbortController();
    stop.abort();
    expect(await unlessAborted(new Promise<number>(() => undefined), stop.signal)).to.equal(undefined);
    expect(getEventListeners(stop.signal, "abort")).to.have.length(0);
  });
});
