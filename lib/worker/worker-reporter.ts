/**
 * How a Worker tells what happened: its events, its counters, its errors. A listener that throws
 * must neither end the loop (which would leave a worker that looks alive but never receives) nor
 * reject a handler's task (an unhandled rejection that ends the process): its error is reported
 * as `error` instead. An error nobody listens to is shown once per kind as a process warning.
 */
import type { EventEmitter } from "events";
import { ReportOnce } from "../report-once";
import { UnheardErrors, workerWarning } from "../unheard-errors";
import type { WorkerEvents } from "./worker-events";
import { createWorkerStats } from "./worker-stats";
import type { WorkerStats } from "./worker-stats";

/** A Worker's events, counters and errors. */
export class WorkerReporter {
  readonly stats: WorkerStats = createWorkerStats();
  /** Lasting problems (a refused wake subscription), each told once until it goes away. */
  readonly problems: ReportOnce;
  /** Errors with no `error` listener: one process warning per error name. */
  private readonly unheard: UnheardErrors;

  constructor(
    private readonly emitter: EventEmitter,
    qname: string,
  ) {
    this.unheard = new UnheardErrors("RSMQ_NEXT_WORKER_ERROR", (error) => workerWarning(qname, error));
    this.problems = new ReportOnce(emitter, (error) => this.error(error));
  }

  /** Emits an event; a listener's exception becomes an `error`. */
  tell<E extends keyof WorkerEvents>(event: E, ...args: WorkerEvents[E]): void {
    try {
      this.emitter.emit(event, ...args);
    } catch (error) {
      this.error(error);
    }
  }

  /** Counts and reports an error. */
  error(error: unknown): void {
    this.stats.errors += 1;
    if (this.emitter.listenerCount("error") === 0) return this.unheard.report(error);
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
