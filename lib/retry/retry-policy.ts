/**
 * When a failed message is tried again, and when it stops. A pure function of (error, deliveries,
 * random): a declared poison error stops at once; a message that has had `maxDeliveries`
 * deliveries (its receive count `rc`, first delivery included, like SQS maxReceiveCount) stops;
 * anything else is retried after an exponential backoff with a cap and jitter.
 */
import { formatDuration } from "./duration";
import { isPoison } from "./poison-error";
import { MAX_SECONDS } from "../operations/rsmq-input-rules";
import { rejectUnknownOptions } from "../options/unknown-options";
import { describeValue, integerOption, optionError } from "../options/checks";

/** How the backoff is randomised so that many failing consumers do not retry in lockstep. */
export type Jitter = "equal" | "full" | "none";

/**
 * The options of a {@link RetryPolicy}, also accepted as a Worker's `retry` option. Each is
 * checked when the policy is built: an unknown name, a value out of range or `maxDelayMs` below
 * `initialDelayMs` throws, naming the option.
 */
export interface RetryPolicyOptions {
  /** Most deliveries of one message, the first included (its `rc`). @default 10 */
  maxDeliveries?: number;
  /** Backoff after the first delivery fails, in ms; it doubles after each further failure. @default 5000 */
  initialDelayMs?: number;
  /** The longest backoff, in ms. @default 120000 */
  maxDelayMs?: number;
  /**
   * `"equal"`: half the step fixed, half random, so the delay never drops below half the step;
   * `"full"`: anywhere from 0 to the step; `"none"`: exactly the step. @default "equal"
   */
  jitter?: Jitter;
  /** The random source, [0, 1); inject one for deterministic tests. @default Math.random */
  random?: () => number;
}

/** Why a message stopped being retried. */
export type StopReason = "poison" | "exhausted";

/** What {@link RetryPolicy.decide} says to do with a failed message. */
export type RetryDecision =
  | {
      /** Deliver the message again. */
      action: "retry";
      /** Milliseconds until it is due again. */
      delayMs: number;
    }
  | {
      /** Stop retrying: dead-letter or delete it. */
      action: "stop";
      /** Why it stopped. */
      reason: StopReason;
    };

/** Every name RetryPolicyOptions takes (checked against the interface below). */
export const RETRY_OPTION_NAMES = ["maxDeliveries", "initialDelayMs", "maxDelayMs", "jitter", "random"] as const;
const allRetryNamesListed: Exclude<keyof RetryPolicyOptions, (typeof RETRY_OPTION_NAMES)[number]> extends never ? true : never = true;
void allRetryNamesListed;

export const RETRY_DEFAULTS = { maxDeliveries: 10, initialDelayMs: 5_000, maxDelayMs: 120_000, jitter: "equal" } as const;

const JITTERS: readonly Jitter[] = ["equal", "full", "none"];

/**
 * The longest delay: rsmq's longest visibility timeout. Beyond about 9.2e18 a score wraps negative
 * in the scripts' string.format("%d"), which would make the message visible at once: no backoff.
 */
export const MAX_DELAY_MS = MAX_SECONDS * 1000;

/**
 * When a failed message is tried again, and when it stops. A declared poison error stops at once;
 * a message that has had `maxDeliveries` deliveries (its receive count `rc`, the first included,
 * like SQS maxReceiveCount) stops; anything else is retried after an exponential backoff with a
 * cap and jitter. Pass one (or its options) as a Worker's `retry`; the methods are pure, for logs
 * and tests.
 *
 * @example
 * const policy = new RetryPolicy({ maxDeliveries: 5, initialDelayMs: 1000, maxDelayMs: 60_000 });
 * policy.describe(); // "at most 5 deliveries; back off 1s doubling, capped at 1m0s, equal jitter"
 * policy.worstCaseMs(); // 15000: 1 + 2 + 4 + 8 seconds between the 5 deliveries
 */
export class RetryPolicy {
  /** Most deliveries of one message, the first included. */
  readonly maxDeliveries: number;
  /** Backoff step after the first failed delivery, in ms. */
  readonly initialDelayMs: number;
  /** The longest backoff step, in ms. */
  readonly maxDelayMs: number;
  /** How the backoff step is randomised. */
  readonly jitter: Jitter;
  private readonly random: () => number;

  /** Checks the options; a wrong one throws a TypeError or RangeError naming it. */
  constructor(options: RetryPolicyOptions = {}) {
    if (typeof options !== "object" || options === null) {
      throw new TypeError(`Expected the retry policy's options to be an object, got ${describeValue(options)}`);
    }
    rejectUnknownOptions(options, { what: "retry policy", names: RETRY_OPTION_NAMES });
    this.maxDeliveries = integerOption("maxDeliveries", options.maxDeliveries ?? RETRY_DEFAULTS.maxDeliveries, 1);
    this.initialDelayMs = integerOption("initialDelayMs", options.initialDelayMs ?? RETRY_DEFAULTS.initialDelayMs, 0, MAX_DELAY_MS);
    this.maxDelayMs = integerOption("maxDelayMs", options.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs, 0, MAX_DELAY_MS);
    if (this.maxDelayMs < this.initialDelayMs) {
      throw new RangeError(`Expected \`maxDelayMs\` (${this.maxDelayMs}) to be at least \`initialDelayMs\` (${this.initialDelayMs})`);
    }
    const jitter = options.jitter ?? RETRY_DEFAULTS.jitter;
    if (!JITTERS.includes(jitter)) {
      throw optionError("jitter", 'one of "equal", "full", "none"', jitter);
    }
    this.jitter = jitter;
    const random = options.random ?? Math.random;
    if (typeof random !== "function") throw optionError("random", "a function", random);
    this.random = random;
  }

  /**
   * The backoff step after `deliveries` deliveries have failed, before jitter: initialDelayMs
   * doubled (deliveries - 1) times, capped at maxDelayMs. Doubles in a loop that stops at the cap,
   * so counts in the hundreds neither overflow to Infinity nor wrap to zero as a shift would.
   */
  stepMs(deliveries: number): number {
    let step = this.initialDelayMs;
    for (let i = 1; i < deliveries && step > 0 && step < this.maxDelayMs; i++) step *= 2;
    return Math.min(step, this.maxDelayMs);
  }

  /** The delay before the next delivery after `deliveries` failed ones, jitter applied. */
  delayMs(deliveries: number): number {
    const step = this.stepMs(deliveries);
    const draw = (span: number): number => Math.min(span, Math.floor(this.random() * (span + 1)));
    switch (this.jitter) {
      case "none":
        return step;
      case "full":
        return draw(step);
      case "equal": {
        // Rounded up: an odd step (1 ms included) never goes below its half, nor to zero.
        const half = Math.ceil(step / 2);
        return half + draw(step - half);
      }
    }
  }

  /** What to do after the delivery numbered `deliveries` (the message's rc) failed with `error`. */
  decide(error: unknown, deliveries: number): RetryDecision {
    if (isPoison(error)) return { action: "stop", reason: "poison" };
    if (deliveries >= this.maxDeliveries) return { action: "stop", reason: "exhausted" };
    return { action: "retry", delayMs: this.delayMs(deliveries) };
  }

  /** One line for logs: `at most 10 deliveries; back off 5s doubling, capped at 2m0s, equal jitter`. */
  describe(): string {
    const deliveries = `at most ${this.maxDeliveries} ${this.maxDeliveries === 1 ? "delivery" : "deliveries"}`;
    const jitter = this.jitter === "none" ? "" : `, ${this.jitter} jitter`;
    return `${deliveries}; back off ${formatDuration(this.initialDelayMs)} doubling, capped at ${formatDuration(this.maxDelayMs)}${jitter}`;
  }

  /**
   * The longest total backoff a message can go through, from its first failed delivery to its last
   * delivery (handler run time not included): the sum of the full steps, which jitter never exceeds.
   */
  worstCaseMs(): number {
    if (this.initialDelayMs === 0) return 0;
    let total = 0;
    for (let deliveries = 1; deliveries < this.maxDeliveries; deliveries++) {
      const step = this.stepMs(deliveries);
      // From the cap on every step is the same: add the rest at once.
      if (step === this.maxDelayMs) return total + step * (this.maxDeliveries - deliveries);
      total += step;
    }
    return total;
  }
}
