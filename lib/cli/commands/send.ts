/** `send <qname> [message]`: sends a message, from the argument or from stdin. */
import type { Command } from "commander";
import { priority, seconds } from "../arguments";
import { run } from "../context";
import { withQueue } from "../connect";
import { usageError } from "../errors";
import { readStdin } from "../stdin";

interface SendOptions {
  delay?: number;
  priority?: number;
  allowEmpty?: boolean;
  dedupId?: string;
}

export function register(program: Command): void {
  program
    .command("send")
    .description("send a message and print its id; without a message argument, stdin is the message")
    .argument("<qname>", "the queue")
    .argument("[message]", "the message body (default: all of stdin, one trailing newline removed)")
    .option("--delay <seconds>", "seconds before the message becomes visible (default: the queue's delay)", seconds)
    .option("--priority <n>", "0 to 9, a larger number received first (default: 0; docs/priorities.md)", priority)
    .option(
      "--dedup-id <id>",
      "send at most once per the queue's dedup window: a repeat prints the first message's id (docs/idempotent-sends.md)",
    )
    .option("--allow-empty", "send an empty message (refused otherwise: an empty pipe or variable is usually a mistake)")
    .action((qname: string, message: string | undefined, options: SendOptions, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        const body = message ?? (await readStdin());
        if (body === "" && !options.allowEmpty) {
          throw usageError(
            message === undefined ? "the message from stdin is empty: nothing was sent" : "the message argument is empty: nothing was sent",
            "an empty message is usually an empty pipe or an unset variable; to send one on purpose, add --allow-empty",
          );
        }
        let duplicate = false;
        const id = await withQueue(server, (rsmq) => {
          rsmq.once("duplicate", () => (duplicate = true));
          return rsmq.sendMessageAsync({
            qname,
            message: body,
            delay: options.delay,
            priority: options.priority,
            dedupId: options.dedupId,
          });
        });
        if (out.json) return out.data(duplicate ? { qname, id, duplicate } : { qname, id });
        out.line(id);
      }),
    );
}
