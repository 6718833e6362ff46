/**
 * The demo, start to end: find (or start) a Redis; create a queue and its dead-letter queue; run a
 * Worker with the default retry policy; send a burst, some delayed messages and one poison message;
 * show live progress until every message is handled or dead-lettered; then count, from INFO
 * commandstats, the commands the idle Worker sends over one idle cycle (a poll per cap), and those a
 * 100 ms rsmq 0.12.4-style poll sends in a few seconds, each projected to an hour; summarise from
 * the server's counters; delete what it created. Stopped part way (Ctrl-C, SIGTERM), it cleans up
 * the same way and throws Interrupted.
 */
import { randomBytes } from "crypto";
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import { internalsOf } from "../../internals";
import type { RedisSMQ } from "../../redis-smq";
import { nextDue } from "../../operations/next-due";
import { Worker } from "../../worker/worker";
import { RetryPolicy } from "../../retry/retry-policy";
import { openQueue } from "../connect";
import { CliError } from "../errors";
import { duration, plural, redactUrl } from "../format";
import { LiveLine, progressBar } from "../live-line";
import type { Output } from "../output";
import { Interrupted, pause, stopSignalReceived } from "../stop-signal";
import { measure, perHour } from "../redis/command-stats";
import { IdleCycleWatch } from "./idle-cycle";
import { findRedis } from "./find-redis";
import type { DemoRedis } from "./find-redis";
import { demoHandler } from "./jobs";
import { demoJobs, demoPlan } from "./plan";
import type { DemoPlan } from "./plan";
import { RsmqStylePoll } from "./rsmq-poll";
import type { DemoSummary } from "./summary";

export interface DemoOptions {
  /** Where to look for Redis first. */
  url: string;
  /** A namespace of the user's choosing; by default a fresh `rsmq-next-demo-<hex>`. */
  ns?: string;
  /** 1 = the real timeline; smaller is faster (tests). */
  scale: number;
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new Interrupted(stopSignalReceived() ?? "SIGINT");
}

export async function runDemo(
  out: Output,
  options: DemoOptions,
  signal: AbortSignal,
  onRedis: (redis: DemoRedis) => void,
): Promise<DemoSummary> {
  const plan: DemoPlan = demoPlan(options.scale);
  const c = out.color;
  const startedAt = Date.now();
  // With --json, stdout carries the summary alone: the story goes to stderr.
  const print = (line: string): void => (out.json ? void out.streams.err.write(`${line}\n`) : out.line(line));
  const say = (text: string): void => print(`${c.dim(duration(Date.now() - startedAt).padStart(6))}  ${text}`);
  const live = new LiveLine(out.streams.err, out.interactiveErr && !out.json);
  /** The live line of a timed window: `ms` of `windowMs` gone, and the commands counted so far. */
  const showWindow = (ms: number, windowMs: number, commands: number): void =>
    live.show(`  ${progressBar(ms, windowMs)} ${(ms / 1000).toFixed(1)}s | Redis commands so far: ${commands}`);

  const redis = await findRedis(options.url, say);
  onRedis(redis);
  const ns = options.ns ?? `rsmq-next-demo-${randomBytes(3).toString("hex")}`;
  const { qname, dlq } = plan;
  let producer: RedisSMQ | undefined;
  let consumer: RedisSMQ | undefined;
  let worker: Worker | undefined;
  let pollClient: RedisClientType | undefined;
  const created: string[] = [];
  try {
    producer = await openQueue({ url: redis.url, ns });
    consumer = await openQueue({ url: redis.url, ns });
    const stats = producer.redis;
    for (const name of [qname, dlq]) {
      try {
        await producer.createQueueAsync({ qname: name });
      } catch (error) {
        if (error instanceof Error && error.name === "queueExists") {
          throw new CliError(
            `queue "${name}" already exists in namespace "${ns}"`,
            1,
            "run the demo in a namespace of its own: leave out --ns",
          );
        }
        throw error;
      }
      created.push(name);
    }
    // The idle Worker's look is a script of its own, loaded on first use (a NOSCRIPT, then EVAL).
    // Loaded now, the idle cycle counts what a later cycle costs, not that one-time load.
    const queue = internalsOf(producer);
    await queue.run(() => nextDue(queue.layout, qname));
    const retry = new RetryPolicy(plan.retry);
    print(`${c.bold("rsmq-next demo")}: a Worker on queue ${c.bold(qname)}, dead letters to ${c.bold(dlq)}`);
    const header = out.fieldLines([
      ["  Redis", `${redactUrl(redis.url)} (version ${redis.version}${redis.throwaway ? ", throwaway" : ""})`],
      ["  namespace", `${ns} ${c.dim("(deleted at the end)")}`],
      ["  worker", `concurrency ${plan.concurrency}; retries: ${retry.describe()}`],
    ]);
    for (const line of header) print(line);
    throwIfAborted(signal);

    // The consumer side, as a separate process would have it: its own connection.
    const retrying = new Set<string>();
    const delayedWaiting = new Set<number>();
    worker = new Worker(consumer, {
      qname,
      concurrency: plan.concurrency,
      retry,
      maxIdleSleepMs: plan.idleCapMs,
      handler: demoHandler(plan, (job) => delayedWaiting.delete(job.job)),
    });
    const idleCycle = new IdleCycleWatch(worker, plan.idleCapMs);
    worker.on("retry", (message) => retrying.add(message.id));
    worker.on("handled", (message) => retrying.delete(message.id));
    worker.on("deadLettered", (message) => retrying.delete(message.id));
    worker.on("error", (error) => {
      if (!live.enabled) say(c.yellow(`worker: ${error.message}`));
    });
    worker.start();

    const jobs = demoJobs(plan);
    const burst = jobs.filter((job) => job.kind === "burst" || job.kind === "flaky");
    const delayed = jobs.filter((job) => job.kind === "delayed");
    const poison = jobs.filter((job) => job.kind === "poison");
    const send = (job: (typeof jobs)[number]): Promise<string> =>
      producer!.sendMessageAsync({ qname, message: JSON.stringify(job), delay: job.delaySeconds });

    const settle = async (): Promise<void> => {
      await Promise.all(burst.map(send));
      say(
        `sent ${plural(burst.length, "message")} at once ${c.dim(`(every ${plan.flakyEvery}th fails its first delivery: a transient error)`)}`,
      );
      for (const job of delayed) delayedWaiting.add(job.job);
      await Promise.all(delayed.map(send));
      say(`sent ${plural(delayed.length, "delayed message")} ${c.dim(`(due in ${plan.delaysSeconds.map((s) => `${s}s`).join(", ")})`)}`);
      await Promise.all(poison.map(send));
      say(`sent ${plural(poison.length, "poison message")} ${c.dim("(its handler throws PoisonError: no retry can help)")}`);
      const deadline = Date.now() + plan.settleTimeoutMs;
      for (;;) {
        const { handled, deadLettered } = worker!.counters;
        const done = handled + deadLettered;
        live.show(
          `  ${progressBar(done, jobs.length)} ${done}/${jobs.length} done | ${handled} handled | ${retrying.size} waiting to retry | ` +
            `${deadLettered} dead-lettered | ${delayedWaiting.size} delayed`,
        );
        if (handled + deadLettered >= jobs.length) break;
        if (Date.now() > deadline) throw new CliError(`the messages did not all settle within ${duration(plan.settleTimeoutMs)}`);
        await pause(100, signal);
        throwIfAborted(signal);
      }
      live.clear();
    };
    const busy = await measure(stats, settle);
    const counters = worker.counters;
    say(`all ${jobs.length} done: ${counters.handled} handled (${counters.retried} after a retry), ${counters.deadLettered} dead-lettered`);

    say(
      `idle: counting the Redis commands of the waiting Worker over one idle cycle ${c.dim(`(it polls once per ${duration(plan.idleCapMs)}, its cap, when nothing is due)`)}`,
    );
    showWindow(0, plan.idleCapMs, 0);
    const workerIdle = await idleCycle.measure(stats, signal, (commands, ms) => showWindow(ms, plan.idleCapMs, commands));
    live.clear();
    throwIfAborted(signal);
    await worker.stop();
    await consumer.quitAsync();
    consumer = undefined;

    say(`${duration(plan.pollMs)} of a ${plan.pollIntervalMs} ms poll on the same empty queue, as an rsmq 0.12.4 consumer does it`);
    pollClient = createClient({ url: redis.url }) as RedisClientType;
    pollClient.on("error", () => undefined);
    await pollClient.connect();
    const poll = new RsmqStylePoll(pollClient, ns, qname);
    await poll.load();
    let polls = 0;
    showWindow(0, plan.pollMs, 0);
    const pollIdle = await measure(
      stats,
      async () => (polls = await poll.runFor(plan.pollMs, plan.pollIntervalMs, signal)),
      (commands, ms) => showWindow(ms, plan.pollMs, commands),
    );
    live.clear();
    throwIfAborted(signal);

    // The message numbers come from the server's counters, not from the Worker's.
    const [main, dead, deadLetters] = await Promise.all([
      producer.getQueueAttributesAsync({ qname }),
      producer.getQueueAttributesAsync({ qname: dlq }),
      producer.peekDeadLettersAsync({ qname: dlq, count: 10 }),
    ]);
    const summary: DemoSummary = {
      server: redactUrl(redis.url),
      redisVersion: redis.version,
      throwaway: redis.throwaway,
      ns,
      qname,
      dlq,
      sent: main.totalsent,
      burst: burst.length,
      delayed: delayed.length,
      poison: poison.length,
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
      workerCounters: worker.counters,
      busy,
      idle: {
        worker: workerIdle,
        rsmqPoll: { ...pollIdle, perHour: perHour(pollIdle.commands, pollIdle.ms), polls, intervalMs: plan.pollIntervalMs },
      },
      elapsedMs: Date.now() - startedAt,
    };
    say(`done; deleting the demo's queues${redis.throwaway ? " and stopping the throwaway redis-server" : ""}`);
    return summary;
  } catch (error) {
    // Once stopped, a failure is the stop's doing (a call cut short): no error of its own.
    if (signal.aborted && !(error instanceof Interrupted)) throw new Interrupted(stopSignalReceived() ?? "SIGINT");
    throw error;
  } finally {
    live.clear();
    await worker?.stop().catch(() => undefined);
    await consumer?.quitAsync().catch(() => undefined);
    if (pollClient?.isOpen) await pollClient.quit().catch(() => undefined);
    for (const name of created) await producer?.deleteQueueAsync({ qname: name }).catch(() => undefined);
    await producer?.quitAsync().catch(() => undefined);
    await redis.stop();
  }
}
