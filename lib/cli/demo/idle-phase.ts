/**
 * The demo's idle phase, counted from INFO commandstats on the same empty queue:
 *
 * - the idle Worker over one whole idle cycle (a poll per cap); then it stops;
 * - a 100 ms rsmq 0.12.4-style poll for a few seconds, on a connection of its own.
 */
import { createClient } from "redis";
import type { RedisClientType } from "redis";
import type { RedisSMQ } from "../../redis-smq";
import { duration } from "../format";
import { measure, perHour } from "../redis/command-stats";
import type { DemoWorker } from "./busy-phase";
import { throwIfAborted } from "./demo-run";
import type { DemoRun } from "./demo-run";
import type { IdleCycle } from "./idle-cycle";
import { RSMQ_RECEIVE_COMMANDS, RsmqStylePoll } from "./rsmq-poll";
import type { RsmqPollCounts } from "./summary";

/** Counts the idle Worker's commands over one idle cycle, then stops it and closes its connection. */
export async function countIdleWorker(run: DemoRun, stats: RedisClientType, demo: DemoWorker, consumer: RedisSMQ): Promise<IdleCycle> {
  const { plan, story, signal } = run;
  const c = story.color;
  story.say(
    `idle: counting the Redis commands of the waiting Worker over one idle cycle ${c.dim(`(it polls once per ${duration(plan.idleCapMs)}, its cap, when nothing is due)`)}`,
  );
  story.showWindow(0, plan.idleCapMs, 0);
  const idle = await demo.idleCycle.measure(stats, signal, (commands, ms) => story.showWindow(ms, plan.idleCapMs, commands));
  story.live.clear();
  throwIfAborted(signal);
  await demo.worker.stop();
  await consumer.quitAsync();
  run.opened.consumer = undefined;
  return idle;
}

/** Runs an rsmq 0.12.4-style poll (receive, and 100 ms after an empty one) and counts its commands. */
export async function countRsmqPoll(run: DemoRun, stats: RedisClientType): Promise<RsmqPollCounts> {
  const { plan, redis, ns, story, signal } = run;
  story.say(`${duration(plan.pollMs)} of a ${plan.pollIntervalMs} ms poll on the same empty queue, as an rsmq 0.12.4 consumer does it`);
  const client = (run.opened.pollClient = createClient({ url: redis.url }) as RedisClientType);
  client.on("error", () => undefined);
  await client.connect();
  const poll = new RsmqStylePoll(client, ns, plan.qname);
  await poll.load();
  let polls = 0;
  story.showWindow(0, plan.pollMs, 0);
  const counts = await measure(
    stats,
    async () => (polls = await poll.runFor(plan.pollMs, plan.pollIntervalMs, signal)),
    (commands, ms) => story.showWindow(ms, plan.pollMs, commands),
  );
  story.live.clear();
  throwIfAborted(signal);
  const sent = polls * RSMQ_RECEIVE_COMMANDS;
  return {
    ...counts,
    perHour: perHour(counts.commands, counts.ms),
    sent,
    sentPerHour: perHour(sent, counts.ms),
    polls,
    intervalMs: plan.pollIntervalMs,
  };
}
