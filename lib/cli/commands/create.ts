/** `create <qname>`: creates a queue. */
import type { Command } from "commander";
import { run } from "../context";
import { withQueue } from "../connect";
import { addSettingOptions, settingsLine, settingsOf } from "../queue-settings";
import type { SettingOptions } from "../queue-settings";

export function register(program: Command): void {
  addSettingOptions(
    program.command("create").description("create a queue").argument("<qname>", "queue name: 1 to 160 of a-z A-Z 0-9 _ -"),
    true,
  ).action((qname: string, options: SettingOptions, command: Command) =>
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
