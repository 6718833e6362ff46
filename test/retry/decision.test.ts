/**
 * RetryPolicy.decide(), in the order: a declared poison error stops at once (even on the
 * first delivery), then a message with maxDeliveries deliveries stops as exhausted, else it is
 * retried after delayMs(rc).
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { isPoison, PoisonError as PoisonErrorDirect } from "../../lib/retry/poison-error";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { RetryPolicy, PoisonError } = RedisSMQ;

describe("RetryPolicy.decide()", () => {
  /** Draws 0, 0.25, 0.5, ... so each decision's jitter differs from the last. */
  function steppingRandom(): () => number {
    let i = 0;
    return () => (i++ % 4) * 0.25;
  }

  it("PoisonError is exported and is an Error named PoisonError with poison: true", () => {
    expect(PoisonError).to.equal(PoisonErrorDirect);
    const error = new PoisonError("order without a customer", { cause: new Error("root") });
    expect(error).to.be.instanceOf(Error);
    expect(error).to.include({ name: "PoisonError", message: "order without a customer", poison: true });
    expect((error as { cause?: Error }).cause?.message).to.equal("root");
    expect(String(error)).to.equal("PoisonError: order without a customer");
  });

  it("a PoisonError or any error with poison: true stops as poison, on every delivery including the first", () => {
    const policy = new RetryPolicy({ maxDeliveries: 5 });
    const flagged = Object.assign(new Error("library error"), { poison: true });
    class OwnError extends Error {
      readonly poison = true;
    }
    const poisons: unknown[] = [new PoisonError("bad payload"), flagged, new OwnError("x"), { poison: true }];
    for (const error of poisons) {
      expect(isPoison(error)).to.equal(true);
      for (const rc of [1, 2, 4, 5, 6, 1000]) {
        expect(policy.decide(error, rc), `${String(error)} rc ${rc}`).to.deep.equal({ action: "stop", reason: "poison" });
      }
    }
  });

  it("anything else is not poison: poison must be exactly true", () => {
    const notPoison: unknown[] = [
      new Error("transient"),
      Object.assign(new Error("x"), { poison: "true" }),
      Object.assign(new Error("x"), { poison: 1 }),
      Object.assign(new Error("x"), { poison: false }),
      { name: "PoisonError" },
      "poison",
      undefined,
      null,
      42,
    ];
    const policy = new RetryPolicy({ maxDeliveries: 3, jitter: "none" });
    for (const error of notPoison) {
      expect(isPoison(error), String(error)).to.equal(false);
      expect(policy.decide(error, 1), String(error)).to.deep.equal({ action: "retry", delayMs: 5000 });
    }
  });

  it("deliveries >= maxDeliveries stop as exhausted; fewer retry after delayMs(rc)", () => {
    for (const maxDeliveries of [1, 2, 3, 10]) {
      for (const jitter of ["none", "equal", "full"] as const) {
        const policy = new RetryPolicy({ maxDeliveries, jitter, random: () => 0.5 });
        for (let rc = 1; rc <= maxDeliveries + 3; rc++) {
          const decision = policy.decide(new Error("transient"), rc);
          if (rc >= maxDeliveries) {
            expect(decision, `max ${maxDeliveries} rc ${rc}`).to.deep.equal({ action: "stop", reason: "exhausted" });
          } else {
            expect(decision, `max ${maxDeliveries} rc ${rc} ${jitter}`).to.deep.equal({ action: "retry", delayMs: policy.delayMs(rc) });
          }
        }
      }
    }
    // With one delivery allowed, the first failure already stops.
    expect(new RetryPolicy({ maxDeliveries: 1 }).decide(new Error("x"), 1)).to.deep.equal({ action: "stop", reason: "exhausted" });
  });

  it("poison is checked before exhaustion: the last delivery's poison error says poison", () => {
    const policy = new RetryPolicy({ maxDeliveries: 3 });
    expect(policy.decide(new PoisonError("x"), 3)).to.deep.equal({ action: "stop", reason: "poison" });
    expect(policy.decide(new Error("x"), 3)).to.deep.equal({ action: "stop", reason: "exhausted" });
  });

  it("a retry's delay is drawn from the injected random source, one draw per decision", () => {
    const policy = new RetryPolicy({ maxDeliveries: 100, random: steppingRandom() });
    // Step 5000, equal jitter: 2500 + floor(r * 2501) for r = 0, 0.25, 0.5, 0.75.
    const delays = [1, 1, 1, 1, 1].map((rc) => (policy.decide(new Error("x"), rc) as { delayMs: number }).delayMs);
    expect(delays).to.deep.equal([2500, 3125, 3750, 4375, 2500]);
    // A poison or exhausted decision draws nothing.
    const counted = { draws: 0 };
    const counting = new RetryPolicy({ maxDeliveries: 2, random: () => (counted.draws++, 0) });
    counting.decide(new PoisonError("x"), 1);
    counting.decide(new Error("x"), 2);
    expect(counted.draws).to.equal(0);
    counting.decide(new Error("x"), 1);
    expect(counted.draws).to.equal(1);
  });

  it("deliveries far past any cap still give a finite, capped delay", () => {
    const policy = new RetryPolicy({ maxDeliveries: Number.MAX_SAFE_INTEGER, jitter: "none" });
    for (const rc of [64, 65, 100, 500, 1000, 1e6, Number.MAX_SAFE_INTEGER - 1]) {
      expect(policy.decide(new Error("x"), rc), String(rc)).to.deep.equal({ action: "retry", delayMs: 120_000 });
    }
    expect(policy.decide(new Error("x"), Number.MAX_SAFE_INTEGER)).to.deep.equal({ action: "stop", reason: "exhausted" });
  });
});
