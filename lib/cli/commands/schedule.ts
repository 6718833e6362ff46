/**
 * `schedule set|rm|pause|resume|ls`: a queue's schedules, the recurring messages it sends itself
 * (docs/schedules.md). `set` writes one by name (upsertScheduleAsync: a new timing applies from its
 * next slot, the same timing keeps its state); the library checks every option before anything is
 * sent, so a bad one is a usage error (exit 2) with nothing written.
 */
import { InvalidArgumentError, Option } from "commander";
import type { Command } from "commander";
import { integer, priority, seconds } from "../arguments";
import { run } from "../context";
import type { Context } from "../context";
import { withQueue } from "../connect";
import { duration, untilTime } from "../control-arguments";
import { isoTime, scheduleState, timingText } from "../schedule-text";
import type { ScheduleCatchup, ScheduleOverlap, UpsertScheduleOptions } from "../../types";

interface SetOptions {
  every?: number;
  cron?: string;
  tz?: string;
  message: string;
  delay?: number;
  priority?: number;
  catchup?: ScheduleCatchup;
  catchupWindow?: number;
  overlap?: ScheduleOverlap;
  startAt?: number;
  endAt?: number;
  limit?: number;
}

/** Whole ms (`60000`), or a duration (`500ms`, `30s`, `10m`, `2h`, `1d`); the library checks the range. */
function milliseconds(value: string): number {
  if (/^\d+$/.test(value.trim())) return integer(0)(value);
  try {
    return duration(value);
  } catch {
    throw new InvalidArgumentError("Expected whole milliseconds (60000) or a duration such as 30s, 10m, 2h or 1d.");
  }
}

/** A time as `--start-at` and `--end-at` take it: epoch ms, an ISO time, or a duration from now. */
const time = (value: string): number => untilTime(value);

/** The options of `set` as upsertScheduleAsync takes them (one not given is undefined, which it reads as left out). */
function upsertOptions(qname: string, name: string, options: SetOptions): UpsertScheduleOptions {
  return {
    qname,
    name,
    message: options.message,
    every: options.every,
    cron: options.cron,
    tz: options.tz,
    delay: options.delay,
    priority: options.priority,
    catchup: options.catchup,
    catchupWindowMs: options.catchupWindow,
    overlap: options.overlap,
    startAt: options.startAt,
    endAt: options.endAt,
    limit: options.limit,
  };
}

/** Runs `body` on the queue `qname` with the schedule `name` named in error messages. */
function onSchedule(command: Command, qname: string, name: string | undefined, body: (context: Context) => Promise<void>): Promise<void> {
  return run(command, async (context) => {
    context.errors.qname = qname;
    context.errors.schedule = name;
    await body(context);
  });
}

export function register(program: Command): void {
  const schedule = program
    .command("schedule")
    .description("a queue's schedules, recurring messages sent exactly once per slot: see `schedule set`, `rm`, `pause`, `resume`, `ls`")
    .addHelpCommand(false);

  schedule
    .command("set")
    .description("create or replace a schedule: every <ms>, or a cron expression in a time zone (docs/schedules.md)")
    .argument("<qname>", "the queue")
    .argument("<name>", "the schedule's name: 1 to 100 of A-Z a-z 0-9 _ . : -")
    .option("--every <ms>", "milliseconds between slots (or 30s, 10m, 1h, 1d), from 1000 to 366 days", milliseconds)
    .option("--cron <expr>", 'a cron expression, 5 fields (minute first) or 6 (seconds first), e.g. "0 2 * * *"; needs croner')
    .option("--tz <zone>", "with --cron: the IANA time zone it is read in (default: UTC)")
    .requiredOption("--message <text>", "the body of every message it sends")
    .option("--delay <seconds>", "seconds each message waits before it is visible (default: the queue's delay)", seconds)
    .option("--priority <n>", "0 to 9, a larger number received first (default: 0)", priority)
    .addOption(
      new Option("--catchup <policy>", "missed slots: latest (default) fires the newest, all fires each, none fires none").choices([
        "latest",
        "all",
        "none",
      ]),
    )
    .option("--catchup-window <ms>", "how old a missed slot may be and still fire (or 1h, 1d; default: 1d)", milliseconds)
    .addOption(
      new Option(
        "--overlap <policy>",
        "allow (default) sends each slot; skip sends none while the previous message is still in the queue",
      ).choices(["allow", "skip"]),
    )
    .option("--start-at <time>", "no slot before this, the anchor of --every: epoch ms, an ISO time, or a duration from now", time)
    .option("--end-at <time>", "no slot after this: epoch ms, an ISO time, or a duration from now", time)
    .option("--limit <n>", "end after this many messages (1 to 1000000000)", integer(1, 1e9))
    .action((qname: string, name: string, options: SetOptions, command: Command) =>
      onSchedule(command, qname, name, async ({ server, out }) => {
        const upsert = upsertOptions(qname, name, options);
        const created = (await withQueue(server, (rsmq) => rsmq.upsertScheduleAsync(upsert))) === 1;
        if (out.json) return out.data({ qname, name, created });
        const timing = timingText({ every: upsert.every, cron: upsert.cron, tz: upsert.tz ?? "UTC" });
        out.line(`${created ? "created" : "replaced"} schedule ${out.color.bold(name)} of queue ${out.color.bold(qname)}: ${timing}`);
      }),
    );

  schedule
    .command("rm")
    .description("remove a schedule (messages it sent stay in the queue)")
    .argument("<qname>", "the queue")
    .argument("<name>", "the schedule")
    .action((qname: string, name: string, _options: unknown, command: Command) =>
      onSchedule(command, qname, name, async ({ server, out }) => {
        const removed = (await withQueue(server, (rsmq) => rsmq.removeScheduleAsync({ qname, name }))) === 1;
        if (out.json) return out.data({ qname, name, removed });
        out.line(
          removed
            ? `removed schedule ${out.color.bold(name)} of queue ${out.color.bold(qname)}`
            : `queue ${out.color.bold(qname)} has no schedule ${out.color.bold(name)}`,
        );
      }),
    );

  schedule
    .command("pause")
    .description("pause a schedule: no slot fires until resume, and the slots in between are not caught up")
    .argument("<qname>", "the queue")
    .argument("<name>", "the schedule")
    .action((qname: string, name: string, _options: unknown, command: Command) =>
      onSchedule(command, qname, name, async ({ server, out }) => {
        const paused = (await withQueue(server, (rsmq) => rsmq.pauseScheduleAsync({ qname, name }))) === 1;
        if (out.json) return out.data({ qname, name, paused });
        out.line(
          paused
            ? `paused schedule ${out.color.bold(name)} of queue ${out.color.bold(qname)}`
            : `schedule ${out.color.bold(name)} of queue ${out.color.bold(qname)} was paused already`,
        );
      }),
    );

  schedule
    .command("resume")
    .description("resume a paused schedule from its next slot")
    .argument("<qname>", "the queue")
    .argument("<name>", "the schedule")
    .action((qname: string, name: string, _options: unknown, command: Command) =>
      onSchedule(command, qname, name, async ({ server, out }) => {
        const resumed = (await withQueue(server, (rsmq) => rsmq.resumeScheduleAsync({ qname, name }))) === 1;
        if (out.json) return out.data({ qname, name, resumed });
        out.line(
          resumed
            ? `resumed schedule ${out.color.bold(name)} of queue ${out.color.bold(qname)}`
            : `schedule ${out.color.bold(name)} of queue ${out.color.bold(qname)} was not paused`,
        );
      }),
    );

  schedule
    .command("ls")
    .description("list a queue's schedules: timing, next and last run (UTC), messages sent, slots missed and skipped, state")
    .argument("<qname>", "the queue")
    .action((qname: string, _options: unknown, command: Command) =>
      onSchedule(command, qname, undefined, async ({ server, out }) => {
        const schedules = await withQueue(server, (rsmq) => rsmq.listSchedulesAsync({ qname }));
        if (out.json) return out.data(schedules);
        if (schedules.length === 0) return out.line(`queue ${out.color.bold(qname)} has no schedule`);
        out.table(
          [
            { title: "NAME" },
            { title: "TIMING" },
            { title: "NEXT RUN" },
            { title: "LAST RUN" },
            { title: "SENT", right: true },
            { title: "MISSED", right: true },
            { title: "SKIPPED", right: true },
            { title: "STATE" },
          ],
          schedules.map((info) => {
            const state = scheduleState(info);
            return [
              info.name,
              timingText(info),
              isoTime(info.nextRunAt),
              isoTime(info.lastRunAt),
              String(info.count),
              String(info.missed),
              String(info.overlapped),
              state === "active" ? state : out.color.yellow(state),
            ];
          }),
        );
      }),
    );
}
