/** `queues`: the queues of the namespace with their message counts. */
import type { Command } from "commander";
import { run } from "../context";
import { withQueue } from "../connect";

export interface QueueRow {
  qname: string;
  msgs: number;
  visible: number;
  hidden: number;
  totalsent: number;
  totalrecv: number;
}

export function register(program: Command): void {
  program
    .command("queues")
    .description("list the queues of the namespace with their message counts")
    .action((_options: unknown, command: Command) =>
      run(command, async ({ server, out }) => {
        const rows = await withQueue(server, async (rsmq) => {
          const names = (await rsmq.listQueuesAsync()).sort();
          // One script call per queue; node-redis pipelines them.
          const found = await Promise.all(
            names.map((qname) =>
              rsmq.getQueueAttributesAsync({ qname }).then(
                (attributes) => ({ qname, attributes }),
                () => undefined,
              ),
            ),
          );
          return found.flatMap((entry): QueueRow[] => {
            if (!entry) return []; // listed but gone (deleted meanwhile, or an rsmq 0.12.4 leftover)
            const { qname, attributes: a } = entry;
            return [
              { qname, msgs: a.msgs, visible: a.msgs - a.hiddenmsgs, hidden: a.hiddenmsgs, totalsent: a.totalsent, totalrecv: a.totalrecv },
            ];
          });
        });
        if (out.json) return out.data(rows);
        if (rows.length === 0) return out.line(`no queues in namespace "${server.ns}"`);
        out.table(
          [
            { title: "QUEUE" },
            { title: "MSGS", right: true },
            { title: "VISIBLE", right: true },
            { title: "HIDDEN", right: true },
            { title: "SENT", right: true },
            { title: "RECEIVED", right: true },
          ],
          rows.map((row) => [
            row.qname,
            String(row.msgs),
            String(row.visible),
            String(row.hidden),
            String(row.totalsent),
            String(row.totalrecv),
          ]),
        );
      }),
    );
}
