/**
 * The demo's busy phase: a Worker with the retry policy on its own connection, then the burst, the
 * delayed messages and the poison one, with live progress until every message is handled or
 * dead-lettered; the server's commands over that stretch are counted.
 */
import type { RedisClientType } from "redis";
import type { RedisSMQ } from "../../redis-smq";
import type { RetryPolicy } from "../../retry/retry-policy";
import { Worker } from "../../worker/worker";
import { CliError } from "../errors";
import { duration, plural } from "../format";
import { progressBar } from "../live-line";
import { measure } from "../redis/command-stats";
import type { WindowCounts } from "../redis/command-stats";
import { pause } from "../stop-signal";
import { throwIfAborted } from "./demo-run";
import type { DemoRun } from "./demo-run";
import { IdleCycleWatch } from "./idle-cycle";
import { demoHandler } from "./jobs";
import type { Job } from "./plan";

/** The demo's Worker, and what the progress line shows of it. */
export interface DemoWorker {
  worker: Worker;
  /** Follows its sleeps from the start, for the idle phase. */
  idleCycle: IdleCycleWatch;
  /** Messages that failed and wait for their retry. */
  retrying: Set<string>;
  /** Delayed jobs not started yet. */
  delayedWaiting: Set<number>;
}

/** Starts the Worker on the consumer's connection. */
export function startWorker(run: DemoRun, consumer: RedisSMQ, retry: RetryPolicy): DemoWorker {
  const { plan, story, opened } = run;
  const retrying = new Set<string>();
  const delayedWaiting = new Set<number>();
  const worker = (opened.worker = new Worker(consumer, {
    qname: plan.qname,
    concurrency: plan.concurrency,
    retry,
    maxIdleSleepMs: plan.idleCapMs,
    handler: demoHandler(plan, (job) => delayedWaiting.delete(job.job)),
  }));
  const idleCycle = new IdleCycleWatch(worker, plan.idleCapMs);
  worker.on("retry", (message) => retrying.add(message.id));
  worker.on("handled", (message) => retrying.delete(message.id));
  worker.on("deadLettered", (message) => retrying.delete(message.id));
  worker.on("error", (error) => {
    if (!story.live.enabled) story.say(story.color.yellow(`worker: ${error.message}`));
  });
  worker.start();
  return { worker, idleCycle, retrying, delayedWaiting };
}

/** Sends every job and waits until all are handled or dead-lettered; the server's commands meanwhile. */
export async function sendAndSettle(run: DemoRun, producer: RedisSMQ, stats: RedisClientType, demo: DemoWorker): Promise<WindowCounts> {
  const { plan, jobs, story } = run;
  const c = story.color;
  const send = (job: Job): Promise<string> =>
    producer.sendMessageAsync({ qname: plan.qname, message: JSON.stringify(job), delay: job.delaySeconds });
  const busy = await measure(stats, async () => {
    await Promise.all(jobs.burst.map(send));
    story.say(
      `sent ${plural(jobs.burst.length, "message")} at once ${c.dim(`(every ${plan.flakyEvery}th fails its first delivery: a transient error)`)}`,
    );
    for (const job of jobs.delayed) demo.delayedWaiting.add(job.job);
    await Promise.all(jobs.delayed.map(send));
    story.say(
      `sent ${plural(jobs.delayed.length, "delayed message")} ${c.dim(`(due in ${plan.delaysSeconds.map((s) => `${s}s`).join(", ")})`)}`,
    );
    await Promise.all(jobs.poison.map(send));
    story.say(`sent ${plural(jobs.poison.length, "poison message")} ${c.dim("(its handler throws PoisonError: no retry can help)")}`);
    await untilSettled(run, demo);
  });
  const counters = demo.worker.counters;
  story.say(
    `all ${jobs.all.length} done: ${counters.handled} handled (${counters.retried} after a retry), ${counters.deadLettered} dead-lettered`,
  );
  return busy;
}

/** Shows the progress line until every job is handled or dead-lettered; throws after plan.settleTimeoutMs. */
async function untilSettled({ plan, jobs, story, signal }: DemoRun, demo: DemoWorker): Promise<void> {
  const total = jobs.all.length;
  const deadline = Date.now() + plan.settleTimeoutMs;
  for (;;) {
    const { handled, deadLettered } = demo.worker.counters;
    const done = handled + deadLettered;
    story.live.show(
      `  ${progressBar(done, total)} ${done}/${total} done | ${handled} handled | ${demo.retrying.size} waiting to retry | ` +
        `${deadLettered} dead-lettered | ${demo.delayedWaiting.size} delayed`,
    );
    if (handled + deadLettered >= total) break;
    if (Date.now() > deadline) throw new CliError(`the messages did not all settle within ${duration(plan.settleTimeoutMs)}`);
    await pause(100, signal);
    throwIfAborted(signal);
  }
  story.live.clear();
}
