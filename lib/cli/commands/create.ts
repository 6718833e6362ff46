/** `create <qname>`: creates a queue. */
import type { Command } from "commander";
import { maxsize, retention, seconds } from "../arguments";
import { run } from "../context";
import { withQueue } from "../connect";
import { settingsLine, settingsOf } from "../queue-settings";

interface CreateOptions {
  vt?: number;
  delay?: number;
  maxsize?: number;
  retention?: number;
  expireTo?: string;
}

export function register(program: Command): void {
  program
    .command("create")
    .description("create a queue")
    .argument("<qname>", "queue name: 1 to 160 of a-z A-Z 0-9 _ -")
    .option("--vt <seconds>", "how long a received message stays hidden (default 30)", seconds)
    .option("--delay <seconds>", "delay for every new message (default 0)", seconds)
    .option("--maxsize <chars>", "longest message, 1024 to 65536, or -1 for unlimited (default 65536)", maxsize)
    .option("--retention <seconds>", "delete (or move) messages this long after they were sent; 0 keeps them (default 0)", retention)
    .option("--expire-to <qname>", "move expired messages to this queue instead of deleting them")
    .action((qname: string, options: CreateOptions, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        const attributes = await withQueue(server, async (rsmq) => {
          const { vt, delay, retention: keep, expireTo } = options;
          await rsmq.createQueueAsync({ qname, vt, delay, maxsize: options.maxsize, retention: keep, expireTo });
          return rsmq.getQueueAttributesAsync({ qname });
        });
        if (out.json) return out.data({ qname, created: true, ...settingsOf(attributes) });
        out.line(`created queue ${out.color.bold(qname)} (${settingsLine(attributes)})`);
      }),
    );
}
