/**
 * `worker <qname> --exec "<command>"`: runs the Worker, each message on a command's stdin, until
 * Ctrl-C / SIGTERM (or --until-empty). Progress lines go to stderr; with --json, one JSON event per
 * line on stdout (the commands' own output then goes to stderr).
 */
import type { Command } from "commander";
import { integer } from "../arguments";
import { run } from "../context";
import type { Context } from "../context";
import { closeQueue, openQueue } from "../connect";
import { plural } from "../format";
import { ExecHandler } from "../exec-handler";
import { stopOnSignals } from "../stop-signal";
import { reportWorkerEvents } from "../worker-events";
import { addWorkerFlags, workerFlagOptions } from "../worker-flags";
import type { FlagOptions, FlaggedOption } from "../worker-flags";
import type { Output } from "../output";
import type { Worker } from "../../worker/worker";
import type { WorkerStats } from "../../worker/worker-stats";
import { QNAME_FORMAT, RESERVED_QNAME } from "../../operations/rsmq-input-rules";
import { usageError } from "../errors";
import type { RedisSMQ } from "../../redis-smq";

/** The worker command's own flags, as commander parsed them, beside those of the Worker's options (worker-flags.ts). */
export interface WorkerCommandOptions {
  readonly exec: string;
  readonly poisonExit?: number;
  readonly untilEmpty?: boolean;
  readonly [workerFlag: string]: unknown;
}

/** The help's order: the Worker's flags in two runs, the command's own flags around them. */
const FIRST_WORKER_FLAGS = ["concurrency", "vt", "retry", "deadLetterQueue"] as const;
const LAST_WORKER_FLAGS = ["maxIdleSleepMs"] as const;
const everyFlagPlaced: Exclude<FlaggedOption, (typeof FIRST_WORKER_FLAGS)[number] | (typeof LAST_WORKER_FLAGS)[number]> extends never
  ? true
  : never = true;
void everyFlagPlaced;

/** Adds `worker` to the program. */
export function register(program: Command): void {
  const command = program
    .command("worker")
    .description("consume a queue: run a shell command per message, the message on its stdin")
    .argument("<qname>", "the queue")
    .requiredOption(
      "--exec <command>",
      "shell command run per message, the body on its stdin; exit 0 = handled, else retried; env RSMQ_MESSAGE_ID, RSMQ_RECEIVE_COUNT, RSMQ_SENT, RSMQ_FIRST_RECEIVED, RSMQ_QNAME, RSMQ_NS",
    );
  addWorkerFlags(command, FIRST_WORKER_FLAGS);
  command.option("--poison-exit <status>", "a command exit status meaning 'never retry': dead-letter at once", integer(1, 255));
  addWorkerFlags(command, LAST_WORKER_FLAGS);
  command
    .option("--until-empty", "stop once the queue holds no messages at all (delayed and retrying ones included)")
    .action((qname: string, options: WorkerCommandOptions, command: Command) =>
      run(command, (context) => runWorkerCommand(qname, options, context)),
    );
}

/**
 * The worker command's action: checks --dlq, opens the queue (a missing one is an error), runs the
 * Worker until a stop signal (or --until-empty) stops it, kills what still runs, and closes.
 */
export async function runWorkerCommand(qname: string, options: WorkerCommandOptions, context: Context): Promise<void> {
  const { server, out, errors } = context;
  errors.qname = qname;
  const flagged = workerFlagOptions(options);
  checkDeadLetterQueueName(flagged.deadLetterQueue);
  const exec = execHandler(qname, options, context);
  let forced = false;
  const stop = stopOnSignals(() => {
    forced = true;
    exec.killAll();
  });
  let rsmq: RedisSMQ | undefined;
  try {
    rsmq = await openQueue(server, { persistent: true });
    const { Worker } = await import("../../worker/worker");
    await rsmq.getQueueAttributesAsync({ qname }); // a missing queue is an error now, not an idle worker
    const started = new Map<string, number>();
    const worker = new Worker(rsmq, {
      qname,
      ...flagged,
      signal: stop.signal,
      // The handler's abort signal is ignored: on Ctrl-C running commands may finish.
      handler: (message) => {
        started.set(message.id, Date.now());
        return exec.handler(message);
      },
    });
    reportWorkerEvents(worker, rsmq, context, started);
    reportStart(context, qname, flagged);
    if (options.untilEmpty) stopWhenEmpty(worker, rsmq, qname, exec);
    stop.signal.addEventListener("abort", () => {
      if (exec.running > 0 && !out.json)
        out.note(`stopping: waiting for ${plural(exec.running, "running command")} (Ctrl-C again to kill)`);
    });
    const stopped = new Promise<void>((resolve) => worker.once("stopped", resolve));
    worker.start();
    // A Ctrl-C that came before the worker existed never reached it.
    if (stop.signal.aborted) void worker.stop();
    await stopped;
    // Commands still running after the worker's stop timeout (30 s): their messages reappear after vt.
    if (exec.running > 0) {
      forced = true;
      exec.killAll();
    }
    reportStop(out, worker.counters, forced);
  } finally {
    stop.dispose();
    if (rsmq) await closeQueue(rsmq).catch(() => undefined);
  }
}

/** Runs --exec per message; with --json the command's own stdout goes to stderr, beside the events on stdout. */
function execHandler(qname: string, options: WorkerCommandOptions, { server, out }: Context): ExecHandler {
  return new ExecHandler({
    command: options.exec,
    qname,
    ns: server.ns,
    poisonExitCode: options.poisonExit,
    stdout: out.json ? out.streams.err : out.streams.out,
    stderr: out.streams.err,
  });
}

/** Checked here, not left to the Worker, so that it is a usage error (exit 2) naming the flag. */
function checkDeadLetterQueueName(dlq: string | undefined): void {
  if (dlq !== undefined && (!QNAME_FORMAT.test(dlq) || dlq === RESERVED_QNAME)) {
    throw usageError(`invalid queue name "${dlq}" for --dlq`, "a queue name is 1 to 160 of a-z A-Z 0-9 _ -, and not QUEUES");
  }
}

/** The "started" event (--json) or note: the queue, the concurrency, the retries and the dead-letter queue. */
function reportStart({ server, out, errors }: Context, qname: string, options: FlagOptions): void {
  const { concurrency, retry } = options;
  const dlq = options.deadLetterQueue ?? `${qname}-dlq`;
  if (out.json)
    out.event({
      event: "started",
      qname,
      ns: server.ns,
      concurrency,
      retry: retry.describe(),
      deadLetterQueue: dlq,
    });
  else
    out.note(
      `worker on ${qname} (${errors.server}, ns ${server.ns}), concurrency ${concurrency}; retries: ${retry.describe()}; dead letters to ${dlq}. Ctrl-C to stop.`,
    );
}

/** The "stopped" event (--json) or note, with the Worker's counters. */
function reportStop(out: Output, counters: WorkerStats, forced: boolean): void {
  if (out.json) out.event({ event: "stopped", counters });
  else
    out.note(
      `stopped: ${plural(counters.handled, "message")} handled, ${counters.retried} retried, ${counters.deadLettered} dead-lettered${forced ? " (commands killed)" : ""}`,
    );
}

/**
 * --until-empty: stops the worker when a receive finds the queue empty, or when the last running
 * command finished and the queue holds nothing more (a message waiting for a retry still counts).
 */
function stopWhenEmpty(worker: Worker, rsmq: RedisSMQ, qname: string, exec: ExecHandler): void {
  const check = async (): Promise<void> => {
    if (exec.running > 0) return;
    const { msgs } = await rsmq.getQueueAttributesAsync({ qname });
    if (msgs === 0) await worker.stop();
  };
  const checkSoon = (): void => void check().catch(() => undefined);
  // A receive a pause held back says nothing about what the queue holds (its next due time is
  // the pause's end, null for none): only an empty receive that was not held back ends the run.
  // The worker tells `heldBack` right after such a receive, in the same tick.
  let heldBack = false;
  worker.on("heldBack", () => (heldBack = true));
  worker.on("receive", (received, nextDueMs) => {
    heldBack = false;
    if (received === 0 && nextDueMs === null) queueMicrotask(() => void (heldBack || worker.stop()));
  });
  worker.on("handled", checkSoon);
  worker.on("deadLettered", checkSoon);
}
