/** `set <qname>`: changes a queue's settings. */
import type { Command } from "commander";
import { run } from "../context";
import { withQueue } from "../connect";
import { CliError, EXIT_USAGE } from "../errors";
import { addSettingOptions, settingsLine, settingsOf } from "../queue-settings";
import type { SettingOptions } from "../queue-settings";
import type { SetQueueAttributesOptions } from "../../types";

export function register(program: Command): void {
  const set = program
    .command("set")
    .description("change a queue's settings: vt, delay, maxsize, retention and where expired messages go")
    .argument("<qname>", "the queue");
  addSettingOptions(set, false).action((qname: string, options: SettingOptions, command: Command) =>
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
