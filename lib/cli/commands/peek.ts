/** `peek <qname>`: the first messages, in the order they will be received, without receiving them. */
import type { Command } from "commander";
import { count } from "../arguments";
import { run } from "../context";
import { withQueue } from "../connect";
import { ago, preview } from "../format";

interface PeekOptions {
  count: number;
}

export function register(program: Command): void {
  program
    .command("peek")
    .description("show the first messages in the order they will be received, without receiving them")
    .argument("<qname>", "the queue")
    .option("-n, --count <n>", "how many, 1 to 1000", count, 10)
    .action((qname: string, options: PeekOptions, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        const { total, messages } = await withQueue(server, async (rsmq) => {
          const [attributes, peeked] = await Promise.all([rsmq.getQueueAttributesAsync({ qname }), rsmq.peekDeadLettersAsync({ qname, count: options.count })]);
          return { total: attributes.msgs, messages: peeked };
        });
        if (out.json) return out.data({ qname, total, messages });
        if (messages.length === 0) return out.line(`queue ${qname} is empty`);
        out.table(
          [{ title: "ID" }, { title: "SENT" }, { title: "MESSAGE" }],
          messages.map((message) => [message.id, ago(message.sent), preview(message.message)]),
        );
        if (total > messages.length) out.note(`${messages.length} of ${total} messages; more with -n ${Math.min(total, 1000)}`);
      }),
    );
}
