/**
 * The way rsmq 0.12.4 code ends a script, run in a child process that must then exit by itself:
 * rsmq-cli (and much code like it) makes one call and, in its callback, closes `rsmq.redis`
 * (`process.nextTick(() => rsmq.redis.quit())`), or closes the client it passed in. With rsmq
 * 0.12.4 the process then exits; whatever else the instance opened (more connections, a Worker's
 * wake subscription) must not keep it alive.
 */
import { expect } from "chai";
import { builtEntry, runChild } from "./child-process";
import type { ChildOutcome } from "./child-process";

/** How the child builds its instance and what it closes afterwards. */
export interface ClosingSetup {
  /** Code that declares `rsmq` (a RedisSMQ from `RedisSMQ`) and `close` (a function returning a promise). */
  readonly setup: string;
  /** Code run after `close()` resolved and before the call that must fail (e.g. wait for an `end` event). */
  readonly afterClose?: string;
}

/** What keeps the instance busy when the client is closed. */
export type Activity = "nothing" | "worker" | "subscription";

/** What the child saw: the listed queues, the worker's events, and how a call made after the close ended. */
export interface ClosingReport {
  queues: unknown;
  events: string[];
  after: string;
}

/**
 * The child program: builds the instance (`setup`), starts `activity`, calls listQueues and closes
 * on the next tick of its callback, then makes one more call and records how it ended. It prints
 * its report when it exits.
 */
export function closingProgram({ setup, afterClose = "" }: ClosingSetup, activity: Activity): string {
  return `
    const RedisSMQ = require(${JSON.stringify(builtEntry)});
    const { internalsOf } = require(${JSON.stringify(builtEntry.replace(/index\.js$/, "internals.js"))});
    const report = { queues: undefined, events: [], after: "not tried" };
    process.on("exit", () => process.stdout.write(JSON.stringify(report)));
    const ns = process.env.NS;
    (async () => {
      ${setup}
      rsmq.on("error", (error) => report.events.push("rsmq error " + error.name + ": " + error.message));
      await rsmq.createQueueAsync({ qname: "q" });
      if (${JSON.stringify(activity)} === "worker") {
        const worker = new RedisSMQ.Worker(rsmq, { qname: "q", handler: () => undefined });
        worker.on("error", (error) => report.events.push("worker error " + error.name + ": " + error.message));
        worker.on("stopped", () => report.events.push("worker stopped"));
        // Asleep after the receive that its wake subscription's confirmation makes (the second).
        const asleep = new Promise((resolve) => {
          const check = () => worker.counters.receives >= 2 && (worker.off("sleep", check), resolve());
          worker.on("sleep", check);
        });
        worker.start();
        await asleep;
      }
      if (${JSON.stringify(activity)} === "subscription") {
        const channel = internalsOf(rsmq).layout.queue("q").realtimeChannel;
        await internalsOf(rsmq).realtimeWakes().subscribe(channel, () => undefined);
      }
      // rsmq-cli's pattern: the result, then rsmq.redis.quit() on the next tick.
      await new Promise((resolve) =>
        rsmq.listQueues((err, queues) => {
          report.queues = err ? "error " + err.message : queues;
          process.nextTick(() => resolve(close()));
        }),
      );
      ${afterClose}
      report.after = await rsmq.sendMessageAsync({ qname: "q", message: "late" }).then(
        () => "sent",
        (error) => error.name + ": " + error.message,
      );
    })().catch((error) => {
      report.events.push("crashed " + (error && error.stack));
      process.exitCode = 1;
    });
  `;
}

/** Runs the program; the child must exit by itself within `exitWithinMs`. */
export async function runClosing(
  setup: ClosingSetup,
  activity: Activity,
  env: Record<string, string>,
  exitWithinMs = 10_000,
): Promise<{ outcome: ChildOutcome; report: ClosingReport | undefined }> {
  const outcome = await runChild(closingProgram(setup, activity), env, exitWithinMs);
  let report: ClosingReport | undefined;
  try {
    report = JSON.parse(outcome.stdout) as ClosingReport;
  } catch {
    report = undefined;
  }
  return { outcome, report };
}

/** How an outcome reads in a failed assertion: "did not exit" first, then what the child said. */
export function describeOutcome({ outcome }: { outcome: ChildOutcome }, exitWithinMs = 10_000): string {
  const exit = outcome.exited ? `exited with code ${outcome.code}` : `did not exit within ${exitWithinMs} ms (killed)`;
  return `${exit}; stdout: ${outcome.stdout || "(none)"}; stderr: ${outcome.stderr || "(none)"}`;
}

/** How each activity reads in a test title. */
export const WHILE: Record<Activity, string> = {
  nothing: "",
  worker: ", with a Worker asleep",
  subscription: ", with a wake subscription open",
};

/**
 * What every closing case asserts: the child exited by itself with code 0, its call after the
 * close failed `connectionClosed`, and nothing but its Worker's stop was reported (the close is
 * the user's, not a connection error).
 */
export function expectClosedCleanly(
  run: { outcome: ChildOutcome; report: ClosingReport | undefined },
  activity: Activity,
  exitWithinMs: number,
): void {
  expect(run.outcome.exited, describeOutcome(run, exitWithinMs)).to.equal(true);
  expect(run.outcome.code, describeOutcome(run, exitWithinMs)).to.equal(0);
  const report = run.report!;
  expect(report.queues).to.deep.equal(["q"]);
  expect(report.after).to.match(/^connectionClosed: /);
  if (activity === "worker") expect(report.events).to.include("worker stopped");
  expect(report.events.filter((event) => event !== "worker stopped")).to.deep.equal([]);
}
