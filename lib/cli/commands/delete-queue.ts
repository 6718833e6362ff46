/** `delete-queue <qname>`: deletes a queue and its messages. */
import type { Command } from "commander";
import { run } from "../context";
import { withQueue } from "../connect";
import { plural } from "../format";

export function register(program: Command): void {
  program
    .command("delete-queue")
    .description("delete a queue and all its messages")
    .argument("<qname>", "the queue")
    .action((qname: string, _options: unknown, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        const messages = await withQueue(server, async (rsmq) => {
          const { msgs } = await rsmq.getQueueAttributesAsync({ qname });
          await rsmq.deleteQueueAsync({ qname });
          return msgs;
        });
        if (out.json) return out.data({ qname, deleted: true, messages });
        out.line(`deleted queue ${out.color.bold(qname)} and its ${plural(messages, "message")}`);
      }),
    );
}
