/** `create <qname>`: creates a queue. */
import type { Command } from "commander";
import { maxsize, seconds } from "../arguments";
import { run } from "../context";
import { withQueue } from "../connect";

interface CreateOptions {
  vt?: number;
  delay?: number;
  maxsize?: number;
}

export function register(program: Command): void {
  program
    .command("create")
    .description("create a queue")
    .argument("<qname>", "queue name: 1 to 160 of a-z A-Z 0-9 _ -")
    .option("--vt <seconds>", "how long a received message stays hidden (default 30)", seconds)
    .option("--delay <seconds>", "delay for every new message (default 0)", seconds)
    .option("--maxsize <chars>", "longest message, 1024 to 65536, or -1 for unlimited (default 65536)", maxsize)
    .action((qname: string, options: CreateOptions, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        const attributes = await withQueue(server, async (rsmq) => {
          await rsmq.createQueueAsync({ qname, vt: options.vt, delay: options.delay, maxsize: options.maxsize });
          return rsmq.getQueueAttributesAsync({ qname });
        });
        const { vt, delay, maxsize: size } = attributes;
        if (out.json) return out.data({ qname, created: true, vt, delay, maxsize: size });
        out.line(`created queue ${out.color.bold(qname)} (vt ${vt}s, delay ${delay}s, maxsize ${size === -1 ? "unlimited" : size})`);
      }),
    );
}
