/**
 * `pause <qname> [--until <time>] [--hard]` and `resume <qname>`: stop and restart every rsmq-next
 * consumer of a queue, in every process, from their next receive (docs/fleet-controls.md).
 */
import type { Command } from "commander";
import { run } from "../context";
import { withQueue } from "../connect";
import { untilTime } from "../control-arguments";
import { usageError } from "../errors";
import { stamp } from "../format";

interface PauseOptions {
  until?: number;
  hard?: boolean;
}

export function register(program: Command): void {
  program
    .command("pause")
    .description("pause a queue: rsmq-next consumers take nothing until resume (or --until); sends are still accepted")
    .argument("<qname>", "the queue")
    .option("--until <time>", "resume by itself then: an ISO time, epoch ms, or a duration from now (10m, 2h)", (value) => untilTime(value))
    .option("--hard", "also stop rsmq 0.12.4 consumers: every message's score is moved out of reach until resume")
    .action((qname: string, options: PauseOptions, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        const hard = Boolean(options.hard);
        if (hard && options.until !== undefined) {
          throw usageError("--hard and --until do not go together", "a hard pause ends with `rsmq-next resume`, which restores the scores");
        }
        await withQueue(server, (rsmq) =>
          rsmq.pauseQueueAsync({ qname, hard, ...(options.until === undefined ? {} : { until: options.until }) }),
        );
        if (out.json) return out.data({ qname, paused: true, hard, until: options.until ?? null });
        const how = hard ? "hard: rsmq 0.12.4 consumers see nothing due either" : "rsmq-next consumers take nothing";
        const until = options.until === undefined ? "until `rsmq-next resume`" : `until ${stamp(options.until)}`;
        out.line(`paused queue ${out.color.bold(qname)} (${how}; ${until})`);
      }),
    );
  program
    .command("resume")
    .description("resume a paused queue and wake its waiting consumers at once")
    .argument("<qname>", "the queue")
    .action((qname: string, _options: unknown, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        const resumed = (await withQueue(server, (rsmq) => rsmq.resumeQueueAsync({ qname }))) === 1;
        if (out.json) return out.data({ qname, resumed });
        out.line(resumed ? `resumed queue ${out.color.bold(qname)}` : `queue ${out.color.bold(qname)} was not paused`);
      }),
    );
}
