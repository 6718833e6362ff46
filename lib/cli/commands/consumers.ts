/**
 * `consumers <qname>`: the Workers consuming a queue, from the heartbeat each keeps in the queue's
 * hash (listConsumersAsync): id, host, pid, concurrency, when it started and when it was last seen.
 */
import type { Command } from "commander";
import { run } from "../context";
import { withQueue } from "../connect";
import { ago, stamp } from "../format";

export function register(program: Command): void {
  program
    .command("consumers")
    .description("list the Workers consuming a queue (host, pid, concurrency, started, last seen), from their heartbeats")
    .argument("<qname>", "the queue")
    .action((qname: string, _options: unknown, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        const consumers = await withQueue(server, (rsmq) => rsmq.listConsumersAsync({ qname }));
        if (out.json) return out.data(consumers);
        if (consumers.length === 0) {
          return out.line(`no Worker consumes queue ${out.color.bold(qname)} (a Worker is listed from its first look at the queue)`);
        }
        const now = Date.now();
        out.table(
          [
            { title: "ID" },
            { title: "HOST" },
            { title: "PID", right: true },
            { title: "CONCURRENCY", right: true },
            { title: "STARTED" },
            { title: "LAST SEEN" },
          ],
          consumers.map((consumer) => [
            consumer.id,
            consumer.host,
            String(consumer.pid),
            String(consumer.concurrency),
            stamp(consumer.startedAt),
            ago(consumer.lastSeenAt, now),
          ]),
        );
      }),
    );
}
