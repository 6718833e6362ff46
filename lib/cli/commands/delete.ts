/** `delete <qname> <id...>`: deletes messages by id. */
import type { Command } from "commander";
import { CliError } from "../errors";
import { run } from "../context";
import { withQueue } from "../connect";
import { plural } from "../format";

export function register(program: Command): void {
  program
    .command("delete")
    .description("delete messages by id (exit code 1 when one was not there)")
    .argument("<qname>", "the queue")
    .argument("<ids...>", "message ids (32 characters each), at most 1000")
    .action((qname: string, ids: string[], _options: unknown, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        const results = await withQueue(server, (rsmq) => rsmq.deleteMessagesAsync({ qname, ids }));
        const deleted = ids.filter((_, i) => results[i] === 1);
        const notFound = ids.filter((_, i) => results[i] !== 1);
        if (out.json) out.data({ qname, deleted, notFound });
        else out.line(`deleted ${plural(deleted.length, "message")} from ${qname}`);
        if (notFound.length > 0) {
          throw new CliError(
            `not in ${qname}: ${notFound.join(", ")}`,
            1,
            "already deleted, or popped; `rsmq-next peek " + qname + "` lists what is there",
          );
        }
      }),
    );
}
