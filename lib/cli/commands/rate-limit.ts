/**
 * `rate-limit <qname>`: sets (`--limit 10/1s [--limit 100/1m+20] [--mode pace]`), removes
 * (`--remove`) or shows a queue's rate limit, and blocks its receives for a while (`--block 30s`,
 * as after a 429). docs/fleet-controls.md says what each does.
 */
import type { Command } from "commander";
import { Option } from "commander";
import { run } from "../context";
import { withQueue } from "../connect";
import { collect, duration, limit } from "../control-arguments";
import { duration as formatDuration } from "../format";
import { usageError } from "../errors";
import { controlFields, rateLimitText } from "../queue-controls";
import type { RateLimit } from "../../types";

interface RateLimitOptions {
  limit?: Array<Required<RateLimit>>;
  mode?: "receive" | "pace";
  remove?: boolean;
  block?: number;
}

export function register(program: Command): void {
  program
    .command("rate-limit")
    .description("set, remove or show a queue's rate limit, which all its consumers obey together; or block its receives for a while")
    .argument("<qname>", "the queue")
    .option(
      "--limit <max/per[+burst]>",
      "a limit, e.g. 10/1s, 100/1m+20 (burst: that many more after a quiet spell); repeat for several",
      collect(limit),
    )
    .addOption(
      new Option(
        "--mode <mode>",
        "receive: checked at receive; pace: new messages spaced at send (rsmq 0.12.4 consumers keep to it too)",
      ).choices(["receive", "pace"]),
    )
    .option("--remove", "remove the queue's rate limit")
    .option("--block <duration>", "block the queue's receives for this long (30s, 5m), e.g. after a 429", duration)
    .action((qname: string, options: RateLimitOptions, command: Command) =>
      run(command, async ({ server, out, errors }) => {
        errors.qname = qname;
        const asked = [options.limit !== undefined, Boolean(options.remove), options.block !== undefined].filter(Boolean).length;
        if (asked > 1) throw usageError("give one of --limit, --remove and --block");
        if (options.mode !== undefined && options.limit === undefined) throw usageError("--mode goes with --limit");
        if (options.limit) {
          const rateLimit = { limits: options.limit, mode: options.mode ?? "receive" };
          await withQueue(server, (rsmq) => rsmq.setRateLimitAsync({ qname, ...rateLimit }));
          if (out.json) return out.data({ qname, rateLimit });
          return out.line(`queue ${out.color.bold(qname)}: rate limit ${rateLimitText(rateLimit)}`);
        }
        if (options.remove) {
          const removed = (await withQueue(server, (rsmq) => rsmq.removeRateLimitAsync({ qname }))) === 1;
          if (out.json) return out.data({ qname, removed });
          return out.line(
            removed ? `removed the rate limit of queue ${out.color.bold(qname)}` : `queue ${out.color.bold(qname)} had no rate limit`,
          );
        }
        if (options.block !== undefined) {
          const ms = options.block;
          await withQueue(server, (rsmq) => rsmq.rateLimitQueueAsync({ qname, ms }));
          if (out.json) return out.data({ qname, blockedMs: ms });
          return out.line(`blocked the receives of queue ${out.color.bold(qname)} for ${formatDuration(ms)}`);
        }
        // Nothing to change: show what is set.
        const attributes = await withQueue(server, (rsmq) => rsmq.getQueueAttributesAsync({ qname }));
        const { rateLimit, rateLimitedUntil } = attributes;
        if (out.json) return out.data({ qname, rateLimit: rateLimit ?? null, rateLimitedUntil: rateLimitedUntil ?? null });
        const fields = controlFields({ rateLimit, rateLimitedUntil });
        if (fields.length === 0) return out.line(`queue ${out.color.bold(qname)} has no rate limit`);
        for (const line of out.fieldLines(fields)) out.line(line);
      }),
    );
}
