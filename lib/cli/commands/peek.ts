/**
 * `peek <qname> [id]`: the first messages, in the order they will be received, without receiving
 * them, each with its state (visible, in flight, delayed) and when it is due; with an id, that one
 * message with its whole body.
 */
import type { Command } from "commander";
import { count } from "../arguments";
import { run } from "../context";
import { withQueue } from "../connect";
import { CliError } from "../errors";
import { ago, preview, stamp } from "../format";
import type { Output } from "../output";
import type { MessageState, MessageWithState } from "../../types";
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
    .argument("[id]", "only this message, with its whole body")
    .option("-n, --count <n>", "how many, 1 to 1000", count, 10)
    .action((qname: string, id: string | undefined, options: PeekOptions, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        if (id !== undefined) return showOne(out, qname, id, await withQueue(server, (rsmq) => rsmq.peekMessageAsync({ qname, id })));
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

/** `peek <qname> <id>`: the message's fields, then its body whole, as sent. */
function showOne(out: Output, qname: string, id: string, found: MessageWithState | {}): void {
  if (!("id" in found)) throw new CliError(`message ${id} is not in queue "${qname}"`);
  if (out.json) return out.data(found);
  out.fields([
    ["id", found.id],
    ["state", stateLabel(out, found.state)],
    ["due", stamp(found.dueAt)],
    ["sent", stamp(found.sent)],
    ["receives", String(found.receiveCount)],
    ...(found.deadLetter ? [["dead letter", `${found.deadLetter.reason}: ${found.deadLetter.error}`] as const] : []),
  ]);
  out.line(found.message);
}
