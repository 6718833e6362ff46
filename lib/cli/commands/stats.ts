/**
 * `stats <qname> [--watch]`: a queue's settings, counters, controls (its concurrency limit with
 * what is leased of it), its live consumers, how many schedules it has, and where its messages are.
 */
import type { Command } from "commander";
import { positiveNumber } from "../arguments";
import { run } from "../context";
import { withQueue } from "../connect";
import { ago, duration, stamp } from "../format";
import type { Output } from "../output";
import { LOOK_AT_MOST } from "../../operations/queue-stats";
import type { QueueStats } from "../../operations/queue-stats";
import { readQueueStats } from "../queue-reads";
import { settingsLine } from "../queue-settings";
import { concurrencyText, controlFields } from "../queue-controls";
import { pause, stopOnSignals } from "../stop-signal";

interface StatsOptions {
  watch?: boolean;
  interval: number;
}

/** Messages per second between two readings. */
interface Rates {
  sentPerSecond: number;
  receivedPerSecond: number;
}

function statsLines(out: Output, stats: QueueStats, ns: string, rates?: Rates): string[] {
  const c = out.color;
  const partial = stats.partial ? ` (in flight/delayed: of the first ${LOOK_AT_MOST} hidden)` : "";
  const fields: Array<[string, string]> = [
    ["queue", `${c.bold(stats.qname)}  ${c.dim(`(namespace ${ns})`)}`],
    [
      "messages",
      `${stats.msgs}: ${c.green(`${stats.visible} visible`)}, ${c.yellow(`${stats.inFlight} in flight`)}, ${c.cyan(`${stats.delayed} delayed`)}${partial}`,
    ],
    ["next due", stats.nextDueMs === null ? "-" : `in ${duration(stats.nextDueMs)}`],
    ["oldest due", stats.waitingMs === null ? "-" : `waiting for ${duration(stats.waitingMs)}`],
    // The pause, the rate limit and a block, each only when the queue has it.
    ...controlFields(stats),
    ...(stats.concurrency === undefined ? [] : [["concurrency", concurrencyText(stats.concurrency, stats.leased)] as [string, string]]),
    ["consumers", String(stats.consumers)],
    // Schedules only for a queue that has some: `schedule ls` lists them.
    ...(stats.schedules === 0 ? [] : [["schedules", `${stats.schedules} (rsmq-next schedule ls ${stats.qname})`] as [string, string]]),
    ["sent", String(stats.totalsent)],
    ["received", String(stats.totalrecv)],
  ];
  if (rates) fields.push(["rate", `${rates.sentPerSecond.toFixed(1)} sent/s, ${rates.receivedPerSecond.toFixed(1)} received/s`]);
  fields.push(
    // A queue without retention reads as it does for `create` and `set`: rsmq's three settings only.
    ["settings", settingsLine({ ...stats, retention: stats.retention || undefined })],
    ["created", `${stamp(stats.created * 1000)} (${ago(stats.created * 1000)})`],
    ["modified", `${stamp(stats.modified * 1000)} (${ago(stats.modified * 1000)})`],
  );
  return out.fieldLines(fields);
}

function ratesBetween(previous: { stats: QueueStats; at: number } | undefined, stats: QueueStats, at: number): Rates | undefined {
  if (!previous || at <= previous.at) return undefined;
  const seconds = (at - previous.at) / 1000;
  return {
    sentPerSecond: Math.max(0, stats.totalsent - previous.stats.totalsent) / seconds,
    receivedPerSecond: Math.max(0, stats.totalrecv - previous.stats.totalrecv) / seconds,
  };
}

export function register(program: Command): void {
  program
    .command("stats")
    .description("show a queue's settings, counters, and its visible, in-flight and delayed messages")
    .argument("<qname>", "the queue")
    .option("-w, --watch", "refresh until Ctrl-C (with --json: one JSON line per refresh)")
    .option("--interval <seconds>", "seconds between refreshes with --watch", positiveNumber, 1)
    .action((qname: string, options: StatsOptions, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        if (!options.watch) {
          const stats = await withQueue(server, (rsmq) => readQueueStats(rsmq, qname));
          if (out.json) return out.data(stats);
          for (const line of statsLines(out, stats, server.ns)) out.line(line);
          return;
        }
        const stop = stopOnSignals();
        try {
          await withQueue(
            server,
            async (rsmq) => {
              let previous: { stats: QueueStats; at: number } | undefined;
              let drawn = 0;
              while (!stop.signal.aborted) {
                const stats = await readQueueStats(rsmq, qname);
                const at = Date.now();
                const rates = ratesBetween(previous, stats, at);
                previous = { stats, at };
                if (out.json) {
                  out.event({ at, ...stats, ...rates });
                } else {
                  const lines = [...statsLines(out, stats, server.ns, rates), out.color.dim(`every ${options.interval}s; Ctrl-C to stop`)];
                  // On a terminal, redraw in place; piped, print each reading after a blank line.
                  if (out.interactive && drawn > 0) out.streams.out.write(`\x1b[${drawn}A\x1b[0J`);
                  else if (drawn > 0) out.line();
                  for (const line of lines) out.line(line);
                  drawn = lines.length;
                }
                await pause(options.interval * 1000, stop.signal);
              }
            },
            { persistent: true },
          );
        } finally {
          stop.dispose();
        }
      }),
    );
}
