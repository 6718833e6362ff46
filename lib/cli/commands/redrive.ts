/**
 * `redrive <dlq>`: moves dead-lettered messages back as new messages, to the queue each came from
 * (or --to), only those that stopped for --reason or with the last error --error when given, page
 * by page so that a terminal shows progress; with --id, that one message only.
 */
import { Option } from "commander";
import type { Command } from "commander";
import { integer } from "../arguments";
import { run } from "../context";
import { withQueue } from "../connect";
import { plural } from "../format";
import { LiveLine, progressBar } from "../live-line";
import { DEAD_LETTER_REASONS } from "../../dead-letters/reasons";
import type { DeadLetterInfo } from "../../types";
import type { RedisSMQ } from "../../redis-smq";

interface RedriveOptions {
  to?: string;
  limit?: number;
  reason?: DeadLetterInfo["reason"];
  error?: string;
  id?: string;
}

/** Messages per redrive call: small enough for smooth progress, large enough to be quick. */
const PAGE = 100;

/** The filters given, as typed on the command line: `--reason poison --error "…"`. */
function filtersOf(options: RedriveOptions): string {
  const given: string[] = [];
  if (options.reason !== undefined) given.push(`--reason ${options.reason}`);
  if (options.error !== undefined) given.push(`--error ${JSON.stringify(options.error)}`);
  return given.join(" ");
}

/** Redrives page by page until a page comes back short or --limit is reached; `onPage` gets each page's count. */
async function redrivePages(rsmq: RedisSMQ, from: string, options: RedriveOptions, onPage: (count: number) => void): Promise<void> {
  for (let moved = 0; ;) {
    const want = Math.min(PAGE, (options.limit ?? Infinity) - moved);
    if (want <= 0) return;
    const count = await rsmq.redriveAsync({ from, to: options.to, limit: want, reason: options.reason, error: options.error });
    moved += count;
    onPage(count);
    // Fewer than asked: nothing movable is left (redrive passes over messages with no source, or filtered out).
    if (count < want) return;
  }
}

export function register(program: Command): void {
  program
    .command("redrive")
    .description("move dead-lettered messages back to the queue they came from (or --to): same id and body, due now, receive count 0")
    .argument("<dlq>", "the dead-letter queue")
    .option("--to <qname>", "move them here instead of to their source queues")
    .option("--limit <n>", "move at most this many", integer(1))
    .addOption(new Option("--reason <reason>", "only those that stopped for this reason").choices(DEAD_LETTER_REASONS))
    .option("--error <text>", "only those whose last error is exactly this text")
    .option("--id <id>", "only this message (as `dlq list` shows its id)")
    .action((from: string, options: RedriveOptions, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = from;
        const filters = filtersOf(options);
        const { moved, left } = await withQueue(server, async (rsmq) => {
          const { msgs } = await rsmq.getQueueAttributesAsync({ qname: from });
          // Filtered, how many will move is unknown until done: a count then, not a bar.
          const total = Math.min(msgs, options.limit ?? Infinity);
          const progress = new LiveLine(out.streams.err, out.interactiveErr && !out.json && total > 0);
          let moved = 0;
          const showProgress = (): void =>
            progress.show(
              filters
                ? ` redrive ${plural(moved, "message")} moved`
                : ` redrive ${progressBar(moved, total)} ${Math.min(moved, total)}/${total} messages`,
            );
          showProgress();
          try {
            if (options.id !== undefined) {
              moved = await rsmq.redriveAsync({ from, to: options.to, reason: options.reason, error: options.error, id: options.id });
            } else {
              await redrivePages(rsmq, from, options, (count) => {
                moved += count;
                showProgress();
              });
            }
          } finally {
            progress.clear();
          }
          const after = await rsmq.getQueueAttributesAsync({ qname: from });
          return { moved, left: after.msgs };
        });
        if (out.json) {
          const one = options.id === undefined ? {} : { id: options.id };
          return out.data({
            from,
            to: options.to ?? null,
            reason: options.reason ?? null,
            error: options.error ?? null,
            ...one,
            moved,
            left,
          });
        }
        if (options.id !== undefined && moved === 1) {
          out.line(`moved message ${options.id} from ${from} ${options.to ? `to ${options.to}` : "to the queue it came from"}`);
          return;
        }
        const where = options.to ? `to ${options.to}` : "to the queues they came from";
        out.line(`moved ${plural(moved, "message")} from ${from} ${where}`);
        if (options.id !== undefined) {
          out.note(
            `message ${options.id} did not move: not in ${from}, held by a consumer, no source queue recorded (move it with --to <qname>)${filters ? `, or not matching ${filters}` : ""}`,
          );
        } else if (left > 0 && !options.limit) {
          out.note(
            filters
              ? `${plural(left, "message")} stayed in ${from}: not matching ${filters}, or no source queue recorded`
              : `${plural(left, "message")} stayed in ${from}: no source queue recorded (not dead-lettered by a Worker); move them with --to <qname>`,
          );
        }
      }),
    );
}
