/**
 * The demo, start to end, in its phases:
 *
 * - find (or start) a Redis (find-redis.ts);
 * - create a queue and its dead-letter queue, and print the header (set-up.ts);
 * - run a Worker with the default retry policy; send a burst, some delayed messages and one poison
 *   message; show live progress until every message is handled or dead-lettered (busy-phase.ts);
 * - count, from INFO commandstats, the commands the idle Worker sends over one idle cycle (a poll
 *   per cap), and those a 100 ms rsmq 0.12.4-style poll sends in a few seconds (idle-phase.ts);
 * - summarise from the server's counters; delete what it created (demo-run.ts).
 *
 * Stopped part way (Ctrl-C, SIGTERM), it cleans up the same way and throws Interrupted.
 */
import { randomBytes } from "crypto";
import type { RedisSMQ } from "../../redis-smq";
import { redactUrl } from "../format";
import type { Output } from "../output";
import { Interrupted, stopSignalReceived } from "../stop-signal";
import { sendAndSettle, startWorker } from "./busy-phase";
import type { DemoWorker } from "./busy-phase";
import { closeAll } from "./demo-run";
import type { DemoJobs, DemoRun } from "./demo-run";
import { findRedis } from "./find-redis";
import type { DemoRedis } from "./find-redis";
import { countIdleWorker, countRsmqPoll } from "./idle-phase";
import { Narration } from "./narration";
import { demoJobs, demoPlan } from "./plan";
import type { Job } from "./plan";
import { setUp } from "./set-up";
import type { DemoSummary } from "./summary";

export interface DemoOptions {
  /** Where to look for Redis first. */
  url: string;
  /** A namespace of the user's choosing; by default a fresh `rsmq-next-demo-<hex>`. */
  ns?: string;
  /** 1 = the real timeline; smaller is faster (tests). */
  scale: number;
}

/** Runs the demo on `out`; `onRedis` learns the server as soon as it is found (a throwaway one must be killed on a forced quit). */
export async function runDemo(
  out: Output,
  options: DemoOptions,
  signal: AbortSignal,
  onRedis: (redis: DemoRedis) => void,
): Promise<DemoSummary> {
  const plan = demoPlan(options.scale);
  const story = new Narration(out);
  const redis = await findRedis(options.url, story.say);
  onRedis(redis);
  const ns = options.ns ?? `rsmq-next-demo-${randomBytes(3).toString("hex")}`;
  const run: DemoRun = { out, plan, jobs: groupJobs(demoJobs(plan)), redis, ns, signal, story, opened: { created: [] } };
  try {
    const { producer, stats, consumer, retry } = await setUp(run);
    const demo = startWorker(run, consumer, retry);
    const busy = await sendAndSettle(run, producer, stats, demo);
    const worker = await countIdleWorker(run, stats, demo, consumer);
    const rsmqPoll = await countRsmqPoll(run, stats);
    const summary = await summarize(run, producer, demo, { busy, idle: { worker, rsmqPoll } });
    story.say(`done; deleting the demo's queues${redis.throwaway ? " and stopping the throwaway redis-server" : ""}`);
    return summary;
  } catch (error) {
    // Once stopped, a failure is the stop's doing (a call cut short): no error of its own.
    if (signal.aborted && !(error instanceof Interrupted)) throw new Interrupted(stopSignalReceived() ?? "SIGINT");
    throw error;
  } finally {
    story.live.clear();
    await closeAll(run.opened, redis);
  }
}

/** The jobs by how they are sent: the burst (flaky ones included), the delayed ones, the poison one. */
function groupJobs(all: Job[]): DemoJobs {
  return {
    all,
    burst: all.filter((job) => job.kind === "burst" || job.kind === "flaky"),
    delayed: all.filter((job) => job.kind === "delayed"),
    poison: all.filter((job) => job.kind === "poison"),
  };
}

/** The summary; its message numbers come from the server's counters, not from the Worker's. */
async function summarize(
  { plan, jobs, redis, ns, story }: DemoRun,
  producer: RedisSMQ,
  demo: DemoWorker,
  counted: Pick<DemoSummary, "busy" | "idle">,
): Promise<DemoSummary> {
  const { qname, dlq } = plan;
  const [main, dead, deadLetters] = await Promise.all([
    producer.getQueueAttributesAsync({ qname }),
    producer.getQueueAttributesAsync({ qname: dlq }),
    producer.peekDeadLettersAsync({ qname: dlq, count: 10 }),
  ]);
  return {
    server: redactUrl(redis.url),
    redisVersion: redis.version,
    throwaway: redis.throwaway,
    ns,
    qname,
    dlq,
    sent: main.totalsent,
    burst: jobs.burst.length,
    delayed: jobs.delayed.length,
    poison: jobs.poison.length,
    handled: main.totalsent - dead.msgs - main.msgs,
    retries: main.totalrecv - main.totalsent,
    deadLettered: dead.msgs,
    deliveries: main.totalrecv,
    deadLetters: deadLetters.map(({ id, deadLetter }) => ({
      id,
      reason: deadLetter?.reason ?? "unknown",
      deliveries: deadLetter?.deliveries ?? 0,
      error: deadLetter?.error ?? "",
    })),
    workerCounters: demo.worker.counters,
    ...counted,
    elapsedMs: story.elapsedMs,
  };
}
