/**
 * The demo's timeline as data, scaled by one factor (1 = the real demo, about 50 s;
 * tests run it shorter). Pure: no clock, no Redis.
 */
import type { RetryPolicyOptions } from "../../retry/retry-policy";
import { RETRY_DEFAULTS } from "../../retry/retry-policy";
import { DEFAULT_MAX_IDLE_SLEEP_MS } from "../../worker/worker-option-table";

export interface DemoPlan {
  readonly scale: number;
  /** The queue and its dead-letter queue. */
  readonly qname: string;
  readonly dlq: string;
  /** Messages sent at once. */
  readonly burst: number;
  /** Every n-th burst message fails its first delivery (a transient error), then succeeds. */
  readonly flakyEvery: number;
  /** Delays of the delayed messages, whole seconds (rsmq's unit). */
  readonly delaysSeconds: readonly number[];
  /** Handler run time, ms: from min to max. */
  readonly workMs: readonly [number, number];
  readonly concurrency: number;
  /** The Worker's retry policy: the default, with its first backoff scaled. */
  readonly retry: RetryPolicyOptions;
  /**
   * The demo Worker's longest idle sleep (its `maxIdleSleepMs`: the default at scale 1). Idle, it
   * looks once per this cap, so its commands are counted over one whole cycle of it.
   */
  readonly idleCapMs: number;
  /** How long the rsmq 0.12.4-style poll runs while its commands are counted. */
  readonly pollMs: number;
  /** The rsmq 0.12.4-style poll's pause after an empty receive (not scaled: it is what is compared). */
  readonly pollIntervalMs: number;
  /** Give up waiting for the messages to settle after this long. */
  readonly settleTimeoutMs: number;
}

export function demoPlan(scale = 1): DemoPlan {
  const scaled = (ms: number): number => Math.max(1, Math.round(ms * scale));
  return {
    scale,
    qname: "jobs",
    dlq: "jobs-dlq",
    burst: 200,
    flakyEvery: 10,
    delaysSeconds: [2, 4, 6, 8, 10].map((s) => Math.max(1, Math.round(s * scale))),
    workMs: [scaled(40), scaled(120)],
    concurrency: 8,
    retry: scale === 1 ? {} : { initialDelayMs: scaled(RETRY_DEFAULTS.initialDelayMs) },
    idleCapMs: scale === 1 ? DEFAULT_MAX_IDLE_SLEEP_MS : scaled(DEFAULT_MAX_IDLE_SLEEP_MS),
    pollMs: Math.max(1000, Math.round(8000 * scale)),
    pollIntervalMs: 100,
    settleTimeoutMs: Math.max(30_000, Math.round(60_000 * scale)),
  };
}

/** What kind of job a demo message is. */
export type JobKind = "burst" | "flaky" | "delayed" | "poison";

export interface Job {
  job: number;
  kind: JobKind;
  delaySeconds?: number;
}

/** The messages to send, in order: the burst, the delayed ones, the poison one. */
export function demoJobs(plan: DemoPlan): Job[] {
  const jobs: Job[] = [];
  for (let i = 1; i <= plan.burst; i++) jobs.push({ job: i, kind: i % plan.flakyEvery === 0 ? "flaky" : "burst" });
  plan.delaysSeconds.forEach((delaySeconds, i) => jobs.push({ job: plan.burst + i + 1, kind: "delayed", delaySeconds }));
  jobs.push({ job: plan.burst + plan.delaysSeconds.length + 1, kind: "poison" });
  return jobs;
}
