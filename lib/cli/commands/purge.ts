/**
 * `purge <qname>`: removes every message of a queue and keeps the queue, its settings and
 * counters. On a terminal it asks first (--yes skips the question). Unlike delete-queue it never
 * runs unasked: without a terminal to ask on, it needs --yes, so a script that empties a queue
 * says so in its own text.
 */
import type { Command } from "commander";
import { canAsk, confirm } from "../confirm";
import { run } from "../context";
import { withQueue } from "../connect";
import { CliError, usageError } from "../errors";
import { plural } from "../format";
import { validateQname } from "../../operations/rsmq-input-rules";

interface PurgeOptions {
  yes?: boolean;
}

export function register(program: Command): void {
  program
    .command("purge")
    .description("remove every message of a queue and keep the queue, its settings and counters (asks first; --yes without a terminal)")
    .argument("<qname>", "the queue")
    .option("-y, --yes", "do not ask (needed when stdin is not a terminal)")
    .action((qname: string, options: PurgeOptions, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        // Both refusals come before anything connects.
        validateQname(qname);
        const ask = !options.yes;
        if (ask && !canAsk()) {
          throw usageError(
            `purge asks before it removes the messages of "${qname}", and stdin is not a terminal`,
            "add --yes to purge without being asked",
          );
        }
        const removed = await withQueue(server, async (rsmq) => {
          if (ask) {
            const { msgs } = await rsmq.getQueueAttributesAsync({ qname });
            const question = `remove all ${plural(msgs, "message")} of queue "${qname}" (namespace ${server.ns} at ${errors.server}), keeping the queue? [y/N] `;
            if (!(await confirm(question))) {
              throw new CliError(`queue "${qname}" was not purged`, 1, "answer y to purge it, or add --yes to purge without being asked");
            }
          }
          return rsmq.purgeQueueAsync({ qname });
        });
        if (out.json) return out.data({ qname, purged: true, removed });
        out.line(`purged queue ${out.color.bold(qname)}: removed ${plural(removed, "message")}`);
      }),
    );
}
