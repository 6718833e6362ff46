/**
 * `concurrency <qname> [max]`: sets (`<max>`), removes (`--remove`) or shows a queue's concurrency
 * limit, the most messages in flight at once with rsmq-next consumers across every process, and
 * how many of them are leased now. docs/fleet-controls.md says how it holds.
 */
import type { Command } from "commander";
import { run } from "../context";
import { withQueue } from "../connect";
import { integer } from "../arguments";
import { usageError } from "../errors";
import { concurrencyText } from "../queue-controls";
import { MAX_CONCURRENCY } from "../../operations/receipt-rules";

interface ConcurrencyOptions {
  remove?: boolean;
}

export function register(program: Command): void {
  program
    .command("concurrency")
    .description("set, remove or show a queue's concurrency limit: at most <max> messages in flight with rsmq-next consumers")
    .argument("<qname>", "the queue")
    .argument("[max]", `messages in flight at most, across every process (1 to ${MAX_CONCURRENCY})`, integer(1, MAX_CONCURRENCY))
    .option("--remove", "remove the queue's concurrency limit")
    .action((qname: string, max: number | undefined, options: ConcurrencyOptions, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        if (max !== undefined && options.remove) throw usageError("give either <max> or --remove");
        if (max !== undefined) {
          await withQueue(server, (rsmq) => rsmq.setConcurrencyAsync({ qname, max }));
          if (out.json) return out.data({ qname, concurrency: max });
          return out.line(`queue ${out.color.bold(qname)}: at most ${max} in flight with rsmq-next consumers`);
        }
        if (options.remove) {
          const removed = (await withQueue(server, (rsmq) => rsmq.removeConcurrencyAsync({ qname }))) === 1;
          if (out.json) return out.data({ qname, removed });
          return out.line(
            removed
              ? `removed the concurrency limit of queue ${out.color.bold(qname)}`
              : `queue ${out.color.bold(qname)} had no concurrency limit`,
          );
        }
        // Nothing to change: show what is set.
        const { concurrency, leased } = await withQueue(server, (rsmq) => rsmq.getQueueAttributesAsync({ qname }));
        if (out.json) return out.data({ qname, concurrency: concurrency ?? null, leased: leased ?? null });
        if (concurrency === undefined) return out.line(`queue ${out.color.bold(qname)} has no concurrency limit`);
        out.fields([["concurrency", concurrencyText(concurrency, leased)]]);
      }),
    );
}
