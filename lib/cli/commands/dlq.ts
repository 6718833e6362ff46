/** `dlq list <dlq>`: dead-lettered messages with why they stopped. */
import type { Command } from "commander";
import { count } from "../arguments";
import { run } from "../context";
import { withQueue } from "../connect";
import { ago, preview } from "../format";

interface ListOptions {
  count: number;
}

export function register(program: Command): void {
  const dlq = program
    .command("dlq")
    .description("dead-letter queues: see `dlq list`; move messages back with `redrive`")
    .addHelpCommand(false);
  dlq
    .command("list")
    .description("list dead-lettered messages: where from, why they stopped, the last error")
    .argument("<dlq>", "the dead-letter queue (a Worker's default is <qname>-dlq)")
    .option("-n, --count <n>", "how many, 1 to 1000", count, 10)
    .action((qname: string, options: ListOptions, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        const { total, messages, sibling } = await withQueue(server, async (rsmq) => {
          const [attributes, peeked, queues] = await Promise.all([
            rsmq.getQueueAttributesAsync({ qname }),
            rsmq.peekDeadLettersAsync({ qname, count: options.count }),
            rsmq.listQueuesAsync(),
          ]);
          return { total: attributes.msgs, messages: peeked, sibling: queues.includes(`${qname}-dlq`) ? `${qname}-dlq` : undefined };
        });
        if (out.json) return out.data({ qname, total, messages });
        if (messages.length === 0) out.line(`no dead letters in ${qname}`);
        else {
          out.table(
            [
              { title: "ID" },
              { title: "REASON" },
              { title: "DELIVERIES", right: true },
              { title: "FROM" },
              { title: "WHEN" },
              { title: "ERROR" },
              { title: "MESSAGE" },
            ],
            messages.map(({ id, message, deadLetter: why }) => [
              id,
              why ? (why.reason === "poison" ? out.color.red("poison") : out.color.yellow(why.reason)) : "-",
              why ? String(why.deliveries) : "-",
              why?.source ?? "-",
              why ? ago(why.at) : "-",
              why ? preview(why.error, 40) : "-",
              preview(message, 30),
            ]),
          );
          if (total > messages.length) out.note(`${messages.length} of ${total} messages; more with -n ${Math.min(total, 1000)}`);
        }
        if (sibling && !messages.some((message) => message.deadLetter)) {
          out.note(`${qname} holds no dead letters; its dead-letter queue may be ${sibling}: rsmq-next dlq list ${sibling}`);
        }
      }),
    );
}
