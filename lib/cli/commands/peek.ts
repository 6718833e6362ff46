/**
 * `peek <qname>`: the first messages, in the order they will be received, without receiving them,
 * each with its state (visible, in flight, delayed) and when it is due.
 */
import type { Command } from "commander";
import { count } from "../arguments";
import { run } from "../context";
import { withQueue } from "../connect";
import { ago, preview } from "../format";
import type { Output } from "../output";
import type { MessageState } from "../../types";
import { readPeek } from "../queue-reads";

interface PeekOptions {
  count: number;
}

/** A state for people, coloured as `stats` colours its counts. */
function stateLabel(out: Output, state: MessageState): string {
  if (state === "visible") return out.color.green("visible");
  if (state === "inFlight") return out.color.yellow("in flight");
  return out.color.cyan("delayed");
}

export function register(program: Command): void {
  program
    .command("peek")
    .description(
      "show the first messages in the order they will be received, without receiving them, with their state (visible, in flight, delayed) and due time",
    )
    .argument("<qname>", "the queue")
    .option("-n, --count <n>", "how many, 1 to 1000", count, 10)
    .action((qname: string, options: PeekOptions, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        const peeked = await withQueue(server, (rsmq) => readPeek(rsmq, qname, options.count));
        if (out.json) return out.data(peeked);
        const { now, total, messages } = peeked;
        if (messages.length === 0) return out.line(`queue ${qname} is empty`);
        out.table(
          [{ title: "ID" }, { title: "STATE" }, { title: "DUE" }, { title: "SENT" }, { title: "MESSAGE" }],
          // DUE by the server's clock; SENT from the id, which the server's clock wrote too.
          messages.map((message) => [
            message.id,
            stateLabel(out, message.state),
            ago(message.dueAt, now),
            ago(message.sent, now),
            preview(message.message),
          ]),
        );
        if (total > messages.length) out.note(`${messages.length} of ${total} messages; more with -n ${Math.min(total, 1000)}`);
      }),
    );
}
