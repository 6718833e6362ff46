/**
 * `peek <qname> [id]`: the first messages, in the order they will be received, without receiving
 * them, each with its state (visible, in flight, delayed) and when it is due; with an id, that one
 * message with its whole body. With `--where`, `--state`, `--limit` or `--cursor` it browses
 * (browseMessagesAsync): page after page until `--limit` matches or the end of the queue, and
 * prints the cursor to go on from when it stopped before the end.
 */
import type { Command } from "commander";
import { count } from "../arguments";
import { run } from "../context";
import { withQueue } from "../connect";
import { CliError } from "../errors";
import { ago, preview, stamp } from "../format";
import type { Output } from "../output";
import type { BrowsedQueueMessage, MessageAttributes, MessageState, MessageWithState } from "../../types";
import type { RedisSMQ } from "../../redis-smq";
import { readBrowsePage, readPeek } from "../queue-reads";
import { collectWhere, printableAttributes } from "../where-arguments";
import { InvalidArgumentError } from "commander";

interface PeekOptions {
  count: number;
  where?: MessageAttributes;
  state?: MessageState;
  limit?: number;
  cursor?: string;
}

const STATES: readonly MessageState[] = ["visible", "inFlight", "delayed"];

function stateArgument(value: string): MessageState {
  if (!STATES.includes(value as MessageState)) throw new InvalidArgumentError(`Expected one of ${STATES.join(", ")}.`);
  return value as MessageState;
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
    .option(
      "--where <name=value>",
      'only messages with this attribute: name=value for a string, name:=<json> for a number, true, false or {"b64":...}; repeatable, all must match',
      collectWhere,
    )
    .option("--state <state>", "only messages in this state: visible, inFlight or delayed", stateArgument)
    .option("--limit <n>", "with --where or --state: how many to show, 1 to 1000 (default: --count's)", count)
    .option("--cursor <cursor>", "go on from where an earlier peek --where stopped (the cursor it printed)")
    .action((qname: string, id: string | undefined, options: PeekOptions, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        if (id !== undefined) return showOne(out, qname, id, await withQueue(server, (rsmq) => rsmq.peekMessageAsync({ qname, id })));
        if (options.where || options.state || options.limit !== undefined || options.cursor !== undefined) {
          const found = await withQueue(server, (rsmq) => browse(rsmq, qname, options));
          if (out.json) {
            const messages = found.messages.map(({ attributes, ...message }) =>
              attributes ? { ...message, attributes: printableAttributes(attributes) } : message,
            );
            return out.data({ qname, now: found.now, messages, cursor: found.cursor });
          }
          return showBrowsed(out, qname, found);
        }
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

/** What `peek --where` found: the messages, where to go on from, and the server's time of the last look. */
interface Browsed {
  now: number;
  messages: BrowsedQueueMessage[];
  cursor: string | null;
}

/** Pages of browseMessages until `--limit` messages or the end of the queue. */
async function browse(rsmq: RedisSMQ, qname: string, options: PeekOptions): Promise<Browsed> {
  const wanted = options.limit ?? options.count;
  const messages: BrowsedQueueMessage[] = [];
  let cursor: string | null = options.cursor ?? null;
  let now = 0;
  do {
    const page = await readBrowsePage(rsmq, qname, {
      where: options.where,
      state: options.state,
      cursor,
      limit: wanted - messages.length,
    });
    messages.push(...page.messages);
    cursor = page.cursor;
    now = page.now;
  } while (cursor !== null && messages.length < wanted);
  return { now, messages, cursor };
}

/** The browsed messages as a table, with their attributes as JSON text, then where to go on from. */
function showBrowsed(out: Output, qname: string, found: Browsed): void {
  const now = found.now;
  if (found.messages.length === 0) out.line(`no message of queue ${qname} matches`);
  else
    out.table(
      [{ title: "ID" }, { title: "STATE" }, { title: "DUE" }, { title: "ATTRIBUTES" }, { title: "MESSAGE" }],
      found.messages.map((message) => [
        message.id,
        stateLabel(out, message.state),
        ago(message.dueAt, now),
        preview(JSON.stringify(printableAttributes(message.attributes) ?? {})),
        preview(message.message),
      ]),
    );
  if (found.cursor !== null) out.note(`more: go on with --cursor ${found.cursor}`);
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
