/**
 * Sending in batches: messages per second of `sendMessagesAsync` (batches of `batch` messages)
 * beside rsmq 0.12.4's `sendMessage` and rsmq-next's own single `sendMessageAsync`, each with
 * `concurrency` calls in flight (so a batch call carries `batch` times more messages per call).
 * Every round sends `messages` messages into a fresh queue per subject, the subjects taking turns
 * at going first; medians over the rounds, and the ratios side by side.
 * `node build/bench/run.js --only sendbatch` runs this part alone.
 */
import { randomBytes } from "crypto";
import { loadavg } from "os";
import { close, openNext, openOld } from "./clients";
import type { Target } from "./redis";
import { median } from "./stats";

export interface SendBatchOptions {
  /** Messages per subject per round. */
  messages: number;
  /** Messages per sendMessages call. */
  batch: number;
  /** Calls in flight at once, for every subject. */
  concurrency: number;
  rounds: number;
}

export type SendSubject = "rsmq-next sendMessages" | "rsmq 0.12.4 sendMessage" | "rsmq-next sendMessage";
const SUBJECTS: readonly SendSubject[] = ["rsmq-next sendMessages", "rsmq 0.12.4 sendMessage", "rsmq-next sendMessage"];

export interface SendBatchResult {
  date: string;
  options: SendBatchOptions;
  loadBefore: number[];
  loadAfter: number[];
  /** Median messages per second of each subject. */
  perSecond: Record<SendSubject, number>;
}

/** Runs `calls` with at most `concurrency` of them in flight. */
async function inFlight(count: number, concurrency: number, call: (index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) await call(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}

/** One subject's messages per second for one round, on a fresh queue. */
async function sendOnce(target: Target, subject: SendSubject, options: SendBatchOptions): Promise<number> {
  const ns = `bs${randomBytes(3).toString("hex")}`;
  const body = (i: number): string => `message ${i} ${"x".repeat(40)}`;
  const rsmq = subject === "rsmq 0.12.4 sendMessage" ? await openOld(target, { ns }) : await openNext(target, { ns });
  try {
    await rsmq.createQueueAsync({ qname: "q" });
    // Warm: the scripts are loaded and cached before the clock starts.
    await rsmq.sendMessageAsync({ qname: "q", message: "warm" });
    if (subject === "rsmq-next sendMessages")
      await (rsmq as Awaited<ReturnType<typeof openNext>>).sendMessagesAsync({ qname: "q", messages: [{ message: "warm" }] });
    const started = process.hrtime.bigint();
    if (subject === "rsmq-next sendMessages") {
      const next = rsmq as Awaited<ReturnType<typeof openNext>>;
      const calls = Math.ceil(options.messages / options.batch);
      await inFlight(calls, options.concurrency, (call) => {
        const first = call * options.batch;
        const size = Math.min(options.batch, options.messages - first);
        return next.sendMessagesAsync({ qname: "q", messages: Array.from({ length: size }, (_, k) => ({ message: body(first + k) })) });
      });
    } else {
      await inFlight(options.messages, options.concurrency, (i) => rsmq.sendMessageAsync({ qname: "q", message: body(i) }));
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    // Every message stored (besides the warm ones), or the figure means nothing.
    const { msgs } = (await rsmq.getQueueAttributesAsync({ qname: "q" })) as { msgs: number };
    const warm = subject === "rsmq-next sendMessages" ? 2 : 1;
    if (msgs !== options.messages + warm)
      throw new Error(`bench sendbatch: ${subject} stored ${msgs - warm} of ${options.messages} messages`);
    await rsmq.deleteQueueAsync({ qname: "q" });
    return options.messages / seconds;
  } finally {
    await close(rsmq);
  }
}

export async function measureSendBatch(target: Target, options: SendBatchOptions, log: (line: string) => void): Promise<SendBatchResult> {
  const loadBefore = loadavg();
  const samples = new Map<SendSubject, number[]>(SUBJECTS.map((subject) => [subject, []]));
  for (let round = 0; round < options.rounds; round += 1) {
    // Each round starts with another subject, so none always runs on a cold or a warm server.
    const order = SUBJECTS.map((_, k) => SUBJECTS[(k + round) % SUBJECTS.length]);
    for (const subject of order) samples.get(subject)!.push(await sendOnce(target, subject, options));
    log(`sendbatch round ${round + 1}/${options.rounds}`);
  }
  const perSecond = Object.fromEntries(SUBJECTS.map((subject) => [subject, Math.round(median(samples.get(subject)!))])) as Record<
    SendSubject,
    number
  >;
  return { date: new Date().toISOString(), options, loadBefore, loadAfter: loadavg(), perSecond };
}

/** The part's table, for stdout and sendbatch.md. */
export function sendBatchTable(result: SendBatchResult): string {
  const { messages, batch, concurrency, rounds } = result.options;
  const load = (values: number[]): string => values.map((value) => value.toFixed(2)).join(", ");
  const batched = result.perSecond["rsmq-next sendMessages"];
  const ratio = (of: number): string => (of > 0 ? `${(batched / of).toFixed(1)}×` : "n/a");
  return [
    `Sending ${messages.toLocaleString("en-US")} messages, ${concurrency} calls in flight (sendMessages: ${batch} messages per call), ` +
      `medians of ${rounds} rounds; load average ${load(result.loadBefore)} before, ${load(result.loadAfter)} after.`,
    "",
    "| subject | messages/s | sendMessages is |",
    "| --- | ---: | ---: |",
    ...SUBJECTS.map(
      (subject) =>
        `| ${subject} | ${result.perSecond[subject].toLocaleString("en-US")} | ${subject === "rsmq-next sendMessages" ? "1.0×" : ratio(result.perSecond[subject])} |`,
    ),
  ].join("\n");
}
