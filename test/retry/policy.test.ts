/**
 * RetryPolicy on its own: the backoff for any delivery count a queue can produce (no overflow, no
 * Infinity, no wrap to zero, the cap holds, equal jitter never below half the step), describe(),
 * worstCaseMs(), and invalid settings rejected by the policy and by the Worker before any Redis
 * call.
 */
import { expect } from "chai";
import RedisSMQ = require("../../lib/index");
import { RETRY_DEFAULTS } from "../../lib/retry/retry-policy";
import type { Jitter, RetryPolicyOptions } from "../../lib/retry/retry-policy";
import { formatDuration } from "../../lib/retry/duration";
import { connectionOptions, uniqueNs } from "../support/server";
import { delay } from "../support/worker";
import { watchDuring } from "../support/retry";
import { runsOn } from "../support/targets";

runsOn("single", "cluster", "client");

const { RetryPolicy, Worker } = RedisSMQ;

const JITTERS: Jitter[] = ["none", "equal", "full"];
const RANDOMS = [0, 0.5, 0.999999];
/** Every count up to past the cap, then counts only a long-lived poison message reaches. */
const ATTEMPTS = [...Array.from({ length: 70 }, (_, i) => i + 1), 100, 500, 1000, 1e6, Number.MAX_SAFE_INTEGER];

/** Policies whose steps are odd, one ms, zero, or the largest cap allowed. */
const SHAPES: RetryPolicyOptions[] = [
  {},
  { initialDelayMs: 1, maxDelayMs: 1 },
  { initialDelayMs: 1, maxDelayMs: 9_999_999_000 },
  { initialDelayMs: 5, maxDelayMs: 125 },
  { initialDelayMs: 7, maxDelayMs: 7 },
  { initialDelayMs: 3, maxDelayMs: 1001 },
  { initialDelayMs: 0, maxDelayMs: 0 },
  { initialDelayMs: 0, maxDelayMs: 1000 },
  { initialDelayMs: 9_999_999_000, maxDelayMs: 9_999_999_000 },
];

/** The step computed exactly, with BigInt: initial * 2^(attempt-1), capped. */
function exactStep(initial: number, cap: number, attempt: number): number {
  if (initial === 0) return 0;
  // Any initial >= 1 passes any allowed cap (< 2^34) well before 2^64.
  const doublings = BigInt(Math.min(attempt - 1, 64));
  const step = BigInt(initial) * 2n ** doublings;
  return Number(step < BigInt(cap) ? step : BigInt(cap));
}

function table(options: RetryPolicyOptions, attempts: number[]): number[] {
  const policy = new RetryPolicy(options);
  return attempts.map((attempt) => policy.delayMs(attempt));
}

const printed: string[] = [];

describe("RetryPolicy", () => {
  after(() => {
    // The tables and describe() for the closing note of issue 4.
    console.log(printed.join("\n"));
  });

  describe("backoff", () => {
    it("holds for attempts 1..70 and 100, 500, 1000, 1e6, MAX_SAFE_INTEGER, every jitter, random 0 / 0.5 / 0.999999", () => {
      let checked = 0;
      for (const shape of SHAPES) {
        for (const jitter of JITTERS) {
          for (const r of RANDOMS) {
            const policy = new RetryPolicy({ ...shape, jitter, random: () => r });
            const where = (attempt: number): string => `${JSON.stringify({ ...shape, jitter, random: r })} attempt ${attempt}`;
            let previousStep = 0;
            for (const attempt of ATTEMPTS) {
              const step = policy.stepMs(attempt);
              const delayMs = policy.delayMs(attempt);
              // Integers exclude NaN and Infinity; the step is the exact doubling, capped.
              expect(Number.isInteger(step), where(attempt)).to.equal(true);
              expect(Number.isInteger(delayMs), where(attempt)).to.equal(true);
              expect(step, where(attempt)).to.equal(exactStep(policy.initialDelayMs, policy.maxDelayMs, attempt));
              expect(step, where(attempt)).to.be.at.most(policy.maxDelayMs).and.at.least(previousStep);
              expect(delayMs, where(attempt)).to.be.at.least(0).and.at.most(step);
              if (jitter === "none") expect(delayMs, where(attempt)).to.equal(step);
              if (jitter === "equal") {
                expect(2 * delayMs, `${where(attempt)}: below half the step ${step}`).to.be.at.least(step);
                if (step > 0) expect(delayMs, `${where(attempt)}: zero`).to.be.above(0);
              }
              if (jitter === "full" && r === 0) expect(delayMs, where(attempt)).to.equal(0);
              previousStep = step;
              checked += 1;
            }
            // Far past the cap the step is the cap (0 only when the first step is 0): no wrap to zero, no Infinity.
            const farStep = policy.initialDelayMs === 0 ? 0 : policy.maxDelayMs;
            for (const attempt of [1000, 1e6, Number.MAX_SAFE_INTEGER]) expect(policy.stepMs(attempt), where(attempt)).to.equal(farStep);
          }
        }
      }
      expect(checked).to.equal(SHAPES.length * JITTERS.length * RANDOMS.length * ATTEMPTS.length);
    });

    it("equal jitter spans exactly [ceil(step/2), step]; full jitter spans [0, step]", () => {
      for (const shape of SHAPES) {
        const low = new RetryPolicy({ ...shape, jitter: "equal", random: () => 0 });
        const high = new RetryPolicy({ ...shape, jitter: "equal", random: () => 0.999999 });
        const fullHigh = new RetryPolicy({ ...shape, jitter: "full", random: () => 0.999999 });
        for (const attempt of [1, 2, 3, 10, 1000]) {
          const step = low.stepMs(attempt);
          expect(low.delayMs(attempt), `${JSON.stringify(shape)} #${attempt}`).to.equal(Math.ceil(step / 2));
          // 0.999999 reaches the top of any span below a million ms.
          if (step < 1_000_000) {
            expect(high.delayMs(attempt), `${JSON.stringify(shape)} #${attempt}`).to.equal(step);
            expect(fullHigh.delayMs(attempt), `${JSON.stringify(shape)} #${attempt}`).to.equal(step);
          }
        }
      }
    });

    it("the default policy's table: 5 s doubling to the 2 min cap from the 6th delivery on", () => {
      const attempts = Array.from({ length: 12 }, (_, i) => i + 1);
      const none = table({ jitter: "none" }, attempts);
      const equalLow = table({ random: () => 0 }, attempts);
      const equalHigh = table({ random: () => 0.999999 }, attempts);
      const equalMid = table({ random: () => 0.5 }, attempts);
      const fullMid = table({ jitter: "full", random: () => 0.5 }, attempts);
      expect(none).to.deep.equal([5000, 10000, 20000, 40000, 80000, 120000, 120000, 120000, 120000, 120000, 120000, 120000]);
      expect(equalLow).to.deep.equal([2500, 5000, 10000, 20000, 40000, 60000, 60000, 60000, 60000, 60000, 60000, 60000]);
      expect(equalHigh).to.deep.equal(none);
      expect(equalMid).to.deep.equal([3750, 7500, 15000, 30000, 60000, 90000, 90000, 90000, 90000, 90000, 90000, 90000]);
      expect(fullMid).to.deep.equal([2500, 5000, 10000, 20000, 40000, 60000, 60000, 60000, 60000, 60000, 60000, 60000]);

      const big = [100, 500, 1000, 1e6, Number.MAX_SAFE_INTEGER];
      expect(table({ jitter: "none" }, big)).to.deep.equal([120000, 120000, 120000, 120000, 120000]);
      expect(table({ random: () => 0 }, big)).to.deep.equal([60000, 60000, 60000, 60000, 60000]);

      const row = (label: string, values: Array<number | string>): string =>
        `${label.padEnd(24)}${values.map((v) => String(v).padStart(9)).join("")}`;
      printed.push(
        "",
        `Backoff table, default policy (${new RetryPolicy().describe()}), delay in ms after delivery #n fails:`,
        row("attempt", attempts),
        row('jitter "none"', none),
        row("equal, random 0", equalLow),
        row("equal, random 0.5", equalMid),
        row("equal, random 0.999999", equalHigh),
        row("full, random 0.5", fullMid),
        row("attempt", ["100", "500", "1000", "1e6", "MAX_SAFE"]),
        row('jitter "none"', table({ jitter: "none" }, big)),
        row("equal, random 0", table({ random: () => 0 }, big)),
        row("equal, random 0.999999", table({ random: () => 0.999999 }, big)),
      );
    });

    it("defaults are 10 deliveries, 5 s, 2 min, equal jitter, Math.random", () => {
      const policy = new RetryPolicy();
      expect(policy).to.include({ maxDeliveries: 10, initialDelayMs: 5000, maxDelayMs: 120000, jitter: "equal" });
      expect(RETRY_DEFAULTS).to.deep.equal({ maxDeliveries: 10, initialDelayMs: 5000, maxDelayMs: 120000, jitter: "equal" });
      // Math.random: delays vary but stay in [step/2, step].
      const seen = new Set<number>();
      for (let i = 0; i < 200; i++) {
        const d = policy.delayMs(1);
        expect(d).to.be.within(2500, 5000);
        seen.add(d);
      }
      expect(seen.size).to.be.above(1);
    });
  });

  describe("describe() and worstCaseMs()", () => {
    it("describe() is one line in Go duration style", () => {
      const defaults = new RetryPolicy().describe();
      printed.push("", `describe() for the defaults: ${defaults}`);
      expect(defaults).to.equal("at most 10 deliveries; back off 5s doubling, capped at 2m0s, equal jitter");
      expect(new RetryPolicy({ maxDeliveries: 3, jitter: "none" }).describe()).to.equal(
        "at most 3 deliveries; back off 5s doubling, capped at 2m0s",
      );
      expect(new RetryPolicy({ maxDeliveries: 1, initialDelayMs: 1500, maxDelayMs: 3_600_000, jitter: "full" }).describe()).to.equal(
        "at most 1 delivery; back off 1.5s doubling, capped at 1h0m0s, full jitter",
      );
      expect(new RetryPolicy({ initialDelayMs: 250, maxDelayMs: 90_500, jitter: "none" }).describe()).to.equal(
        "at most 10 deliveries; back off 250ms doubling, capped at 1m30.5s",
      );
    });

    it("durations read like Go's time.Duration", () => {
      const cases: Array<[number, string]> = [
        [0, "0s"],
        [1, "1ms"],
        [999, "999ms"],
        [1000, "1s"],
        [1500, "1.5s"],
        [59_999, "59.999s"],
        [60_000, "1m0s"],
        [120_000, "2m0s"],
        [90_061_000, "25h1m1s"],
        [3_600_000, "1h0m0s"],
      ];
      for (const [ms, text] of cases) expect(formatDuration(ms), String(ms)).to.equal(text);
    });

    it("worstCaseMs() is the sum of the full steps between the first and the last delivery", () => {
      expect(new RetryPolicy().worstCaseMs()).to.equal(635_000);
      expect(new RetryPolicy({ maxDeliveries: 3, jitter: "none" }).worstCaseMs()).to.equal(15_000);
      expect(new RetryPolicy({ maxDeliveries: 3, initialDelayMs: 50, jitter: "none" }).worstCaseMs()).to.equal(150);
      expect(new RetryPolicy({ maxDeliveries: 1 }).worstCaseMs()).to.equal(0);
      expect(new RetryPolicy({ initialDelayMs: 0, maxDelayMs: 0 }).worstCaseMs()).to.equal(0);
      expect(new RetryPolicy({ maxDeliveries: 1000 }).worstCaseMs()).to.equal(155_000 + 120_000 * 994);
      const huge = new RetryPolicy({ maxDeliveries: Number.MAX_SAFE_INTEGER }).worstCaseMs();
      expect(Number.isFinite(huge)).to.equal(true);
      expect(huge).to.be.above(1e20);
      // Against a plain sum, for every count up to well past the cap.
      for (const shape of SHAPES) {
        for (let maxDeliveries = 1; maxDeliveries <= 40; maxDeliveries++) {
          const policy = new RetryPolicy({ ...shape, maxDeliveries });
          let sum = 0;
          for (let d = 1; d < maxDeliveries; d++) sum += policy.stepMs(d);
          expect(policy.worstCaseMs(), `${JSON.stringify(shape)} max ${maxDeliveries}`).to.equal(sum);
        }
      }
    });
  });

  describe("invalid settings", () => {
    const invalid: Array<[RetryPolicyOptions, RegExp]> = [
      [{ maxDeliveries: 0 }, /`maxDeliveries`.*integer from 1.*`0` \(number\)/],
      [{ maxDeliveries: -1 }, /`maxDeliveries`.*`-1`/],
      [{ maxDeliveries: 1.5 }, /`maxDeliveries`.*`1\.5`/],
      [{ maxDeliveries: NaN }, /`maxDeliveries`.*`NaN`/],
      [{ maxDeliveries: Infinity }, /`maxDeliveries`/],
      [{ maxDeliveries: "3" as unknown as number }, /`maxDeliveries`.*\(string\)/],
      [{ initialDelayMs: -1 }, /`initialDelayMs`.*`-1`/],
      [{ initialDelayMs: NaN }, /`initialDelayMs`.*`NaN`/],
      [{ initialDelayMs: 2.5 }, /`initialDelayMs`/],
      [{ maxDelayMs: -5 }, /`maxDelayMs`.*`-5`/],
      [{ maxDelayMs: NaN }, /`maxDelayMs`.*`NaN`/],
      [{ maxDelayMs: Infinity }, /`maxDelayMs`/],
      // Past rsmq's longest visibility timeout a score would wrap negative in Lua (%d).
      [{ maxDelayMs: 1e20 }, /`maxDelayMs`.*9999999000/],
      [{ initialDelayMs: 10_000_000_000, maxDelayMs: 10_000_000_000 }, /`initialDelayMs`.*9999999000/],
      [{ initialDelayMs: 5000, maxDelayMs: 4999 }, /`maxDelayMs` \(4999\).*at least `initialDelayMs` \(5000\)/],
      [{ maxDelayMs: 1000 }, /`maxDelayMs` \(1000\).*`initialDelayMs` \(5000\)/],
      [{ jitter: "random" as Jitter }, /`jitter`.*"equal", "full", "none".*`random`/],
      [{ jitter: "" as Jitter }, /`jitter`/],
      [{ random: 0.5 as unknown as () => number }, /`random`.*function/],
      // Not options at all: rejected rather than read as "all defaults".
      [5 as RetryPolicyOptions, /retry policy's options to be an object.*`5` \(number\)/],
      ["fast" as RetryPolicyOptions, /retry policy's options to be an object.*`fast` \(string\)/],
    ];

    it("new RetryPolicy rejects each with a message naming the option", () => {
      for (const [options, message] of invalid) {
        expect(() => new RetryPolicy(options), JSON.stringify(options)).to.throw(message);
      }
    });

    it("new Worker({ retry }) rejects the same settings before any Redis call", async () => {
      const rsmq = new RedisSMQ(connectionOptions(uniqueNs()));
      try {
        await rsmq.createQueueAsync({ qname: "q" });
        const commands = await watchDuring(async () => {
          for (const [options, message] of invalid) {
            expect(() => new Worker(rsmq, { qname: "q", handler: () => undefined, retry: options }), JSON.stringify(options)).to.throw(
              message,
            );
          }
          await delay(20);
        });
        expect(commands.map((command) => command.args[0])).to.deep.equal([]);
      } finally {
        await rsmq.quitAsync();
      }
    });

    it("new RetryPolicy rejects an option it does not know, naming it and the closest known one", () => {
      const unknown: Array<[Record<string, unknown>, string]> = [
        [{ maxDelivery: 3 }, "Unknown retry policy option `maxDelivery`: did you mean `maxDeliveries`?"],
        [{ initialDelay: 100 }, "Unknown retry policy option `initialDelay`: did you mean `initialDelayMs`?"],
        [{ maxdelayms: 100 }, "Unknown retry policy option `maxdelayms`: did you mean `maxDelayMs`?"],
        [{ jiter: "full" }, "Unknown retry policy option `jiter`: did you mean `jitter`?"],
      ];
      for (const [options, message] of unknown) {
        const thrown = (() => {
          try {
            new RetryPolicy(options as RetryPolicyOptions);
          } catch (error) {
            return error as Error;
          }
          throw new Error(`expected ${JSON.stringify(options)} to be rejected`);
        })();
        expect(thrown, JSON.stringify(options)).to.be.instanceOf(TypeError);
        expect(thrown.message).to.equal(message);
      }
      expect(() => new RetryPolicy({ backoff: "fast" } as RetryPolicyOptions)).to.throw(
        TypeError,
        "Unknown retry policy option `backoff`; known options: maxDeliveries, initialDelayMs, maxDelayMs, jitter, random",
      );
    });

    it("a RetryPolicy instance or its options are both accepted by the Worker", async () => {
      const rsmq = new RedisSMQ(connectionOptions(uniqueNs()));
      try {
        expect(
          () => new Worker(rsmq, { qname: "q", handler: () => undefined, retry: new RetryPolicy({ maxDeliveries: 2 }) }),
        ).not.to.throw();
        expect(
          () => new Worker(rsmq, { qname: "q", handler: () => undefined, retry: { maxDeliveries: 1, initialDelayMs: 0, maxDelayMs: 0 } }),
        ).not.to.throw();
      } finally {
        await rsmq.quitAsync();
      }
    });
  });
});
