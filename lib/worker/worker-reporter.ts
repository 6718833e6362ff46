/**
 * How a Worker tells what happened: its events, its counters, its errors. A listener that throws
 * must neither end the loop (which would leave a worker that looks alive but never receives) nor
 * reject a handler's task (an unhandled rejection that ends the process): its error is reported
 * as `error` instead. An error nobody listens to is shown once per kind as a process warning.
 * After `stopped` it tells nothing but `abandoned`: a reply that comes in late (a delete or an
 * extension sent before the stop, answered or failed after it, once the connection has quit)
 * concerns a worker that is gone.
 */
import type { EventEmitter } from "events";
import type { QueueMessage } from "../types";
import { ReportOnce, workerWarning } from "../errors/report-once";
import type { AbandonedOutcome, WorkerEvents } from "./worker-events";
import { createWorkerStats } from "./worker-stats";
import type { WorkerStats } from "./worker-stats";

/** A Worker's events, counters and errors. */
export class WorkerReporter {
  readonly stats: WorkerStats = createWorkerStats();
  /**
   * Lasting problems (a refused wake subscription), each told once until it goes away; errors with
   * no `error` listener: one process warning per error name and code.
   */
  readonly problems: ReportOnce;
  /** Set once `stopped` is told. */
  private closed = false;

  constructor(
    private readonly emitter: EventEmitter,
    qname: string,
  ) {
    const unheard = { code: "RSMQ_NEXT_WORKER_ERROR", describe: (error: Error) => workerWarning(qname, error) };
    this.problems = new ReportOnce(emitter, unheard, (error) => this.error(error));
  }

  /** Emits an event; a listener's exception becomes an `error`. */
  tell<E extends keyof WorkerEvents>(event: E, ...args: WorkerEvents[E]): void {
    if (this.closed && event !== "abandoned") return;
    try {
      this.emitter.emit(event, ...args);
    } catch (error) {
      // Also after `stopped`: a throwing `abandoned` listener is a bug to be seen.
      this.report(error);
    }
  }

  /** Tells `stopped`; after it, only `abandoned`. */
  stopped(): void {
    this.tell("stopped");
    this.closed = true;
  }

  /** Counts and tells a message whose handler ended after `stopped`. */
  abandoned(message: QueueMessage, outcome: AbandonedOutcome): void {
    this.stats.abandoned += 1;
    this.tell("abandoned", message, outcome);
  }

  /** Counts and tells a message cancelled while this worker held it (deleted, or received again elsewhere). */
  cancelled(message: QueueMessage): void {
    this.stats.cancelled += 1;
    this.tell("cancelled", message);
  }

  /** Counts and reports an error (none once `stopped` is told). */
  error(error: unknown): void {
    if (!this.closed) this.report(error);
  }

  private report(error: unknown): void {
    this.stats.errors += 1;
    if (this.emitter.listenerCount("error") === 0) return this.problems.warnUnheard(error);
    try {
      this.emitter.emit("error", error instanceof Error ? error : new Error(String(error)));
    } catch (listenerError) {
      // An `error` listener that throws has nowhere left to report to: surface it as Node does
      // for any listener, as an uncaught exception, but outside the worker's own code paths.
      process.nextTick(() => {
        throw listenerError;
      });
    }
  }
}
