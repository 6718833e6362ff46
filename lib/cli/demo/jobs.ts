/**
 * The demo's handler: pretends to work for a few tens of ms; a "flaky" job fails its first
 * delivery with a transient error (so the retry policy retries it), a "poison" job throws a
 * PoisonError (so it is dead-lettered at once).
 */
import type { MessageHandler } from "../../worker/worker-options";
import { PoisonError } from "../../retry/poison-error";
import type { DemoPlan, Job } from "./plan";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function demoHandler(plan: DemoPlan, onStart: (job: Job) => void): MessageHandler {
  const [min, max] = plan.workMs;
  return async (message) => {
    const job = JSON.parse(message.message) as Job;
    onStart(job);
    await sleep(min + Math.random() * (max - min));
    if (job.kind === "poison") throw new PoisonError(`job ${job.job}: order has no customer id, no retry can fix that`);
    if (job.kind === "flaky" && message.rc === 1) throw new Error(`job ${job.job}: payment API timed out (simulated)`);
  };
}
