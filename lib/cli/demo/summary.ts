/** The demo's summary: the numbers, and how they read for people. */
import type { WorkerStats } from "../../worker/worker-stats";
import { duration, preview } from "../format";
import type { Output } from "../output";
import { describeCounts } from "../redis/command-stats";
import type { WindowCounts } from "../redis/command-stats";
import type { IdleCycle } from "./idle-cycle";

/**
 * The rsmq 0.12.4-style poll's commands (on the server, and those it sent), projected from the
 * window to an hour; its polls, and its pause after an empty one.
 */
export type RsmqPollCounts = WindowCounts & { perHour: number; sent: number; sentPerHour: number; polls: number; intervalMs: number };

export interface DemoSummary {
  server: string;
  redisVersion: string;
  throwaway: boolean;
  ns: string;
  qname: string;
  dlq: string;
  /** From the queue's counters on the server. */
  sent: number;
  burst: number;
  delayed: number;
  poison: number;
  handled: number;
  retries: number;
  deadLettered: number;
  /** The queue's totalrecv: every delivery. */
  deliveries: number;
  deadLetters: Array<{ id: string; reason: string; deliveries: number; error: string }>;
  /** The Worker's own counters, which must agree. */
  workerCounters: WorkerStats;
  /** From the first send until every message was handled or dead-lettered. */
  busy: WindowCounts;
  /** Commands while idle, each also projected to an hour: the Worker's per cycle of its cap, the poll's from its window. */
  idle: {
    /** Over one whole idle cycle of the Worker: one poll (a look or a receive) per cap, and the health check riding it. */
    worker: IdleCycle;
    rsmqPoll: RsmqPollCounts;
  };
  elapsedMs: number;
}

/** Aligned rows without a header line, indented: a label, numbers (right-aligned), a remark. */
function rows(out: Output, cells: string[][]): void {
  const columns = cells[0].map((_, i) => ({ title: "", right: i > 0 && i < cells[0].length - 1 }));
  const lines = out.tableLines(columns, cells).slice(1);
  for (const line of lines) out.line(`  ${line}`);
}

/** `~213,300/h`. */
function hourly(count: number): string {
  return `~${count.toLocaleString("en-US")}/h`;
}

/** `7 on the server, with what its script ran inside (~840/h)`. */
function onServer(commands: number, perHour: number): string {
  return `${commands} on the server, with what its script ran inside (${hourly(perHour)})`;
}

export function renderSummary(out: Output, s: DemoSummary): void {
  const c = out.color;
  out.line();
  out.line(c.bold("Summary") + c.dim(" (measured on the server: the queues' counters and INFO commandstats)"));
  const firstDead = s.deadLetters[0];
  rows(out, [
    ["messages sent", String(s.sent), c.dim(`${s.burst} in a burst, ${s.delayed} delayed, ${s.poison} poison`)],
    ["handled", c.green(String(s.handled)), c.dim(`${s.deliveries} deliveries in all`)],
    ["retries", c.yellow(String(s.retries)), c.dim("deliveries after a failure, as the retry policy decided")],
    [
      "dead-lettered",
      c.red(String(s.deadLettered)),
      firstDead ? c.dim(`${firstDead.reason}: "${preview(firstDead.error, 60)}" (in ${s.dlq})`) : "",
    ],
  ]);
  const { worker, rsmqPoll } = s.idle;
  out.line();
  out.line(
    c.bold("Redis commands sent while idle, per hour as the README counts them") +
      c.dim(" (counted with INFO commandstats, which also counts what scripts run inside, and every client)"),
  );
  rows(out, [
    [
      "rsmq-next Worker",
      c.green(String(worker.sent)),
      c.green(hourly(worker.sentPerHour)),
      c.dim(
        `one idle cycle (a poll per ${duration(worker.capMs)} cap): the poll's script and the wake subscription's PING; ` +
          `${onServer(worker.commands, worker.perHour)}: ${describeCounts(worker.byCommand)}`,
      ),
    ],
    [
      `${rsmqPoll.intervalMs} ms poll, rsmq 0.12.4 style`,
      c.red(String(rsmqPoll.sent)),
      c.red(hourly(rsmqPoll.sentPerHour)),
      c.dim(
        `${rsmqPoll.polls} polls of MULTI HMGET TIME EXEC EVALSHA in ${duration(rsmqPoll.ms)}; ` +
          `${onServer(rsmqPoll.commands, rsmqPoll.perHour)}: ${describeCounts(rsmqPoll.byCommand)}`,
      ),
    ],
  ]);
  out.line();
  out.line(c.dim("The Worker sleeps until the next message is due and wakes at once when one is sent; the poll asks ten times a second."));
}
