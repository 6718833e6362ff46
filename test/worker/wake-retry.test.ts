/**
 * The wake subscription's tries (lib/worker/wake-retry.ts): a try that fails after the worker
 * stopped is no problem to report. quitAsync stops the workers first, then closes the subscriber,
 * which ends a subscription still waiting for its connection: that ending is the stop itself.
 */
import { expect } from "chai";
import { EventEmitter } from "events";
import { keepSubscribing } from "../../lib/worker/wake-retry";
import { systemClock } from "../../lib/worker/clock";
import { ReportOnce } from "../../lib/errors/report-once";
import { runsOn } from "../support/targets";

runsOn("single");

describe("keepSubscribing", () => {
  function reporter() {
    const emitter = new EventEmitter();
    const reported: Error[] = [];
    emitter.on("error", (error: Error) => reported.push(error));
    return { reported, problems: new ReportOnce(emitter, { code: "TEST", describe: String }) };
  }

  it("reports nothing, and tries no more, when the try fails after the stop", async () => {
    const { reported, problems } = reporter();
    const stop = new AbortController();
    let failTry: (error: Error) => void = () => undefined;
    const attempt = new Promise<() => unknown>((_, reject) => (failTry = reject));
    let tries = 0;
    const subscribing = keepSubscribing({
      channel: "rsmq:rt:q",
      subscribe: () => {
        tries += 1;
        return attempt;
      },
      clock: systemClock,
      signal: stop.signal,
      problems,
      maxIdleSleepMs: 60_000,
    });
    stop.abort();
    const closed = new Error("rsmq-next: the connection to 127.0.0.1:6379 was closed before it was ready; the call was never sent");
    closed.name = "connectionClosed";
    failTry(closed);
    expect(await subscribing).to.equal(undefined);
    expect(reported.map(String)).to.deep.equal([]);
    expect(tries).to.equal(1);
  });
});
