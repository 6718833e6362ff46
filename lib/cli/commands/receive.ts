/** `receive <qname>` (hides the message for vt) and `pop <qname>` (deletes it). */
import type { Command } from "commander";
import { count, integer, seconds } from "../arguments";
import { MAX_WAIT_MS } from "../../wakes/waiting-receive";
import { run } from "../context";
import { withQueue } from "../connect";
import { duration } from "../format";
import type { QueueMessage } from "../../types";
import type { ReceiveBlock } from "../../operations/receive-block";
import { printMessages } from "./messages";

interface ReceiveOptions {
  vt?: number;
  count: number;
  wait?: number;
}

/** --wait: whole seconds, bounded by the API's longest wait. */
const waitSeconds = integer(0, MAX_WAIT_MS / 1000);

/** Why a receive took nothing while messages may be due: the queue's pause, rate limit or block. */
function heldBack(qname: string, blocked: ReceiveBlock): string {
  if (blocked.reason === "paused") {
    return `no message: queue ${qname} is paused${blocked.retryMs === null ? " until resumed" : ` for ${duration(blocked.retryMs)} more`}`;
  }
  if (blocked.reason === "maxed") {
    return `no message: queue ${qname} is at its concurrency limit; a slot frees within ${duration(blocked.retryMs)} at the latest`;
  }
  const why = blocked.intervalMs === 0 ? "its receives are blocked" : "its rate limit is reached";
  return `no message: queue ${qname} is held back (${why}); the next receive may take one in ${duration(blocked.retryMs)}`;
}

function isMessage(value: QueueMessage | {}): value is QueueMessage {
  return "id" in value;
}

export function register(program: Command): void {
  program
    .command("receive")
    .description("receive due messages: they stay in the queue, hidden for vt seconds, until deleted")
    .argument("<qname>", "the queue")
    .option("--vt <seconds>", "how long the messages stay hidden (default: the queue's vt)", seconds)
    .option("-n, --count <n>", "most messages to receive, 1 to 1000", count, 1)
    .option("--wait <seconds>", `when none is due, wait up to this long for one (0 to ${MAX_WAIT_MS / 1000})`, waitSeconds)
    .action((qname: string, options: ReceiveOptions, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        const { received, vt } = await withQueue(server, async (rsmq) => {
          const result = await rsmq.receiveMessagesAsync({
            qname,
            vt: options.vt,
            count: options.count,
            ...(options.wait === undefined ? {} : { waitMs: options.wait * 1000 }),
          });
          // For the human hint only: how long they are hidden.
          const hiddenFor = options.vt ?? (result.messages.length > 0 ? (await rsmq.getQueueAttributesAsync({ qname })).vt : 0);
          return { received: result, vt: hiddenFor };
        });
        if (out.json) return out.data(received);
        if (received.messages.length > 0) return printMessages(out, received.messages, { qname, vt });
        if (received.blocked) return out.line(heldBack(qname, received.blocked));
        const next = received.nextDueMs;
        out.line(
          next === null || next === undefined
            ? `no message: queue ${qname} is empty`
            : `no message is due; the next one in ${duration(next)}`,
        );
      }),
    );

  program
    .command("pop")
    .description("receive the next due message and delete it at once")
    .argument("<qname>", "the queue")
    .action((qname: string, _options: unknown, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        const popped = await withQueue(server, (rsmq) => rsmq.popMessageAsync({ qname }));
        const messages = isMessage(popped) ? [popped] : [];
        if (out.json) return out.data({ messages });
        if (messages.length > 0) return printMessages(out, messages);
        out.line("no message is due");
      }),
    );
}
