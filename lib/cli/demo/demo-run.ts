/**
 * What every phase of the demo works with, and the cleanup they share.
 *
 * - Each phase notes what it opens or creates in `opened`, so that the end (also on Ctrl-C or an
 *   error) closes and deletes exactly that.
 */
import type { RedisClientType } from "redis";
import type { RedisSMQ } from "../../redis-smq";
import type { Worker } from "../../worker/worker";
import type { Output } from "../output";
import { Interrupted, stopSignalReceived } from "../stop-signal";
import type { DemoRedis } from "./find-redis";
import type { Narration } from "./narration";
import type { DemoPlan, Job } from "./plan";

/** The demo's messages, by how they are sent: the burst (the flaky ones in it), the delayed ones, the poison one. */
export interface DemoJobs {
  all: Job[];
  burst: Job[];
  delayed: Job[];
  poison: Job[];
}

/** What the demo opened or created so far: closed, stopped or deleted at the end. */
export interface Opened {
  producer?: RedisSMQ;
  consumer?: RedisSMQ;
  worker?: Worker;
  pollClient?: RedisClientType;
  /** Queues the demo created (and so deletes). */
  created: string[];
}

/** One run of the demo, as its phases see it. */
export interface DemoRun {
  readonly out: Output;
  readonly plan: DemoPlan;
  readonly jobs: DemoJobs;
  readonly redis: DemoRedis;
  readonly ns: string;
  /** Aborted by Ctrl-C or SIGTERM. */
  readonly signal: AbortSignal;
  readonly story: Narration;
  readonly opened: Opened;
}

/** Throws Interrupted once a stop signal came. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new Interrupted(stopSignalReceived() ?? "SIGINT");
}

/** Stops, closes and deletes what the demo opened, ignoring failures; then stops a throwaway server. */
export async function closeAll(opened: Opened, redis: DemoRedis): Promise<void> {
  await opened.worker?.stop().catch(() => undefined);
  await opened.consumer?.quitAsync().catch(() => undefined);
  if (opened.pollClient?.isOpen) await opened.pollClient.quit().catch(() => undefined);
  for (const name of opened.created) await opened.producer?.deleteQueueAsync({ qname: name }).catch(() => undefined);
  await opened.producer?.quitAsync().catch(() => undefined);
  await redis.stop();
}
