/**
 * A queue's controls read from the `:Q` fields that hold them (`paused`, `ratelimit`, `rlblock`;
 * lib/operations/queue-fields.ts) at the server's time `nowMs`, in the shape getQueueAttributesAsync
 * reports (the same parsers): for the readings of many queues (stats, the dashboard, the metrics).
 * Pure: no round trip. A field that does not parse reads as absent, so a damaged field never makes
 * a reading fail (the doctor reports it).
 */
import { pauseOf } from "./attributes-reply";
import { parseRateLimitField } from "./control-rules";
import type { QueuePause, QueueRateLimit } from "../types";

/** The controls of a queue, each absent when not set (or, for a pause and a block, not in force). */
export interface QueueControls {
  paused?: QueuePause;
  rateLimit?: QueueRateLimit;
  /** Epoch ms until which receives are blocked (rateLimitQueue, a handler's RateLimitError). */
  rateLimitedUntil?: number;
}

/** All three, each only when set: so an untouched queue reads with none of them. */
export function readControls(
  paused: string | null | undefined,
  ratelimit: string | null | undefined,
  rlblock: string | null | undefined,
  nowMs: number,
): QueueControls {
  const controls: QueueControls = {};
  const pause = pauseOf(paused, nowMs);
  if (pause) controls.paused = pause;
  const rateLimit = ratelimit ? parseRateLimitField(ratelimit) : undefined;
  if (rateLimit) controls.rateLimit = rateLimit;
  const block = Number(rlblock);
  if (rlblock && Number.isInteger(block) && block > nowMs) controls.rateLimitedUntil = block;
  return controls;
}

/** Whether receives are held back by a pause (a hard pause's restore in progress is not one). */
export function isPaused(paused: QueuePause | null | undefined): boolean {
  return paused !== undefined && paused !== null && paused.restoring !== true;
}

/** The sustained rate of the tightest limit, per second (without its burst); undefined without a limit. */
export function tightestPerSecond(rateLimit: QueueRateLimit | null | undefined): number | undefined {
  if (!rateLimit) return undefined;
  return Math.min(...rateLimit.limits.map((limit) => (limit.max * 1000) / limit.perMs));
}
