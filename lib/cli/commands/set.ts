/** `set <qname>`: changes a queue's settings. */
import type { Command } from "commander";
import { maxsize, retention, seconds } from "../arguments";
import { run } from "../context";
import { withQueue } from "../connect";
import { CliError, EXIT_USAGE } from "../errors";
import { settingsLine, settingsOf } from "../queue-settings";
import type { SetQueueAttributesOptions } from "../../types";

interface SetOptions {
  vt?: number;
  delay?: number;
  maxsize?: number;
  retention?: number;
  expireTo?: string;
}

export function register(program: Command): void {
  program
    .command("set")
    .description("change a queue's settings: vt, delay, maxsize, retention and where expired messages go")
    .argument("<qname>", "the queue")
    .option("--vt <seconds>", "how long a received message stays hidden", seconds)
    .option("--delay <seconds>", "delay for every new message", seconds)
    .option("--maxsize <chars>", "longest message, 1024 to 65536, or -1 for unlimited", maxsize)
    .option("--retention <seconds>", "delete (or move) messages this long after they were sent; 0 keeps them", retention)
    .option("--expire-to <qname>", 'move expired messages to this queue; "" deletes them again')
    .action((qname: string, options: SetOptions, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        const { vt, delay, retention: keep, expireTo } = options;
        const changes: SetQueueAttributesOptions = { qname, vt, delay, maxsize: options.maxsize, retention: keep, expireTo };
        if (Object.values(options).every((value) => value === undefined)) {
          throw new CliError("Nothing to change: give at least one of --vt, --delay, --maxsize, --retention, --expire-to.", EXIT_USAGE);
        }
        const attributes = await withQueue(server, (rsmq) => rsmq.setQueueAttributesAsync(changes));
        if (out.json) return out.data({ qname, ...settingsOf(attributes) });
        out.line(`changed queue ${out.color.bold(qname)} (${settingsLine(attributes)})`);
      }),
    );
}
