/** The demo's first phase: its two connections, its queue and dead-letter queue, and the header. */
import type { RedisClientType } from "redis";
import { internalsOf } from "../../internals";
import { nextDue } from "../../operations/next-due";
import { script } from "../../scripts/script-files";
import type { ScriptName } from "../../scripts/script-files";
import type { RedisSMQ } from "../../redis-smq";
import { RetryPolicy } from "../../retry/retry-policy";
import { openQueue } from "../connect";
import { CliError } from "../errors";
import { redactUrl } from "../format";
import { throwIfAborted } from "./demo-run";
import type { DemoRun } from "./demo-run";

/** What the later phases get from the first. */
export interface DemoQueues {
  /** Sends the messages, counts the server's commands, reads the counters at the end. */
  producer: RedisSMQ;
  /** The producer's client, whose server's INFO commandstats every phase counts with. */
  stats: RedisClientType;
  /** The Worker's own connection, as a separate process would have it. */
  consumer: RedisSMQ;
  retry: RetryPolicy;
}

/** Opens both connections, creates both queues (in a namespace of their own), and prints the header. */
export async function setUp(run: DemoRun): Promise<DemoQueues> {
  const { plan, redis, ns, opened } = run;
  const producer = (opened.producer = await openQueue({ url: redis.url, ns }));
  const consumer = (opened.consumer = await openQueue({ url: redis.url, ns }));
  const stats = producer.redis;
  for (const name of [plan.qname, plan.dlq]) {
    await createQueue(producer, name, ns);
    opened.created.push(name);
  }
  // The idle Worker's look is a script of its own, loaded on first use (a NOSCRIPT, then EVAL).
  // Loaded now, the idle cycle counts what a later cycle costs, not that one-time load.
  const queue = internalsOf(producer);
  await queue.run(() => nextDue(queue.layout, plan.qname));
  // So are the look that carries its heartbeat and the entry's removal at stop, in every text the
  // Worker's connection may send them (it has run enough scripts by then to send the granted ones).
  for (const name of ["lookAndBeat", "removeConsumer"] as const) await preload(stats, name);
  const retry = new RetryPolicy(plan.retry);
  printHeader(run, retry);
  throwIfAborted(run.signal);
  return { producer, stats, consumer, retry };
}

/**
 * Loads every text of script `name` the runner may send (plain and flagged, checked and granted);
 * one the server cannot compile (a shebang before Redis 7) is skipped, as the runner would not send it.
 */
async function preload(client: DemoQueues["stats"], name: ScriptName): Promise<void> {
  const loaded = script(name);
  const bodies = [loaded, loaded.flagged, ...(loaded.granted ? [loaded.granted.plain, loaded.granted.flagged] : [])];
  for (const body of bodies) await client.sendCommand(["SCRIPT", "LOAD", body.source]).catch(() => undefined);
}

/** Creates a queue; one that exists already is someone else's: the demo refuses to touch it. */
async function createQueue(producer: RedisSMQ, qname: string, ns: string): Promise<void> {
  try {
    await producer.createQueueAsync({ qname });
  } catch (error) {
    if (error instanceof Error && error.name === "queueExists") {
      throw new CliError(
        `queue "${qname}" already exists in namespace "${ns}"`,
        1,
        "run the demo in a namespace of its own: leave out --ns",
      );
    }
    throw error;
  }
}

function printHeader({ out, plan, redis, ns, story }: DemoRun, retry: RetryPolicy): void {
  const c = out.color;
  story.print(`${c.bold("rsmq-next demo")}: a Worker on queue ${c.bold(plan.qname)}, dead letters to ${c.bold(plan.dlq)}`);
  const header = out.fieldLines([
    ["  Redis", `${redactUrl(redis.url)} (version ${redis.version}${redis.throwaway ? ", throwaway" : ""})`],
    ["  namespace", `${ns} ${c.dim("(deleted at the end)")}`],
    ["  worker", `concurrency ${plan.concurrency}; retries: ${retry.describe()}`],
  ]);
  for (const line of header) story.print(line);
}
