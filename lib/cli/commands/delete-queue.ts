/**
 * `delete-queue <qname>`: deletes a queue and its messages. On a terminal it asks first (--yes
 * skips the question); a script, whose stdin is no terminal, is never asked.
 */
import type { Command } from "commander";
import { canAsk, confirm } from "../confirm";
import { run } from "../context";
import { withQueue } from "../connect";
import { CliError } from "../errors";
import { plural } from "../format";

interface DeleteQueueOptions {
  yes?: boolean;
}

export function register(program: Command): void {
  program
    .command("delete-queue")
    .description("delete a queue and all its messages (on a terminal, asks first)")
    .argument("<qname>", "the queue")
    .option("-y, --yes", "do not ask (it never asks when stdin is not a terminal)")
    .action((qname: string, options: DeleteQueueOptions, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        const messages = await withQueue(server, async (rsmq) => {
          const { msgs } = await rsmq.getQueueAttributesAsync({ qname });
          if (!options.yes && canAsk()) {
            const question = `delete queue "${qname}" and its ${plural(msgs, "message")} (namespace ${server.ns} at ${errors.server})? [y/N] `;
            if (!(await confirm(question))) {
              throw new CliError(
                `queue "${qname}" was not deleted`,
                1,
                "answer y to delete it, or add --yes to delete without being asked",
              );
            }
          }
          await rsmq.deleteQueueAsync({ qname });
          return msgs;
        });
        if (out.json) return out.data({ qname, deleted: true, messages });
        out.line(`deleted queue ${out.color.bold(qname)} and its ${plural(messages, "message")}`);
      }),
    );
}
