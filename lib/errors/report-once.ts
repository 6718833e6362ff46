/**
 * Makes sure an error is seen once, neither on every call it affects nor never. An EventEmitter
 * with no `error` listener would crash the process on `emit("error")`, which a queue consumer
 * riding out an outage must not do; dropping the error instead leaves a user with a worker that
 * silently does nothing. So what nobody listens to becomes a process warning (Node's convention:
 * printed to stderr, observable with `process.on("warning")`).
 * - A lasting problem (a refused realtime notification or wake subscription) goes to the `error`
 *   listeners, or when nobody listens becomes one warning, until it goes away: `report`, `resolved`.
 * - An error the owner found no listener for becomes one warning per error name and code, with
 *   the owner's text and warning code: `warnUnheard`.
 */
import type { EventEmitter } from "events";

/** The process warning for an error nobody listens to. */
export interface UnheardWarning {
  /** The warning's `code` (RSMQ_NEXT_CONNECTION_ERROR, RSMQ_NEXT_WORKER_ERROR). */
  readonly code: string;
  /** The warning text for an error: say who failed, what happens next, how to listen. */
  describe(error: Error): string;
}

/** One emitter's record of what it has reported. */
export class ReportOnce {
  private readonly reported = new Set<string>();
  private readonly warned = new Set<string>();

  /**
   * @param emitter whose `error` listeners hear each problem (a RedisSMQ instance, a Worker)
   * @param unheard the warning for an error nobody listens to
   * @param emitError how to emit to them, when the emitter has its own way (counters, a listener that throws)
   */
  constructor(
    private readonly emitter: EventEmitter,
    private readonly unheard: UnheardWarning,
    private readonly emitError: (error: Error) => void = (error) => void emitter.emit("error", error),
  ) {}

  /** Reports `error` unless the problem named `key` was reported and has not gone away since. */
  report(key: string, error: Error): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    if (this.emitter.listenerCount("error") > 0) this.emitError(error);
    else process.emitWarning(error);
  }

  /** The problem named `key` went away: the next time it happens is reported again. */
  resolved(key: string): void {
    this.reported.delete(key);
  }

  /** Emits a warning for `error`, which nobody listens to, unless one with its name and code was emitted already. */
  warnUnheard(error: unknown): void {
    const reported = error instanceof Error ? error : new Error(String(error));
    const key = `${reported.name}/${String((reported as { code?: unknown }).code ?? "")}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    process.emitWarning(this.unheard.describe(reported), { code: this.unheard.code });
  }
}

/** `name: message`, as a stack's first line reads. */
export function errorLine(error: Error): string {
  return `${error.name}: ${error.message}`;
}

/** The warning for an error of a worker with no `error` listener. */
export function workerWarning(qname: string, error: Error): string {
  const fix = error.name === "queueNotFound" ? " Create the queue, or check the worker's `qname` and the instance's `ns`." : "";
  return (
    `rsmq-next: the Worker of queue "${qname}" failed: ${errorLine(error)}. It carries on (a failed receive is retried, backing off up to 15 s).` +
    `${fix} Listen for the worker's "error" event to handle its errors (this warning is shown once per kind of error).`
  );
}

/** The warning for a connection error with no `error` listener. */
export function connectionWarning(error: Error): string {
  return (
    `rsmq-next: Redis connection error: ${errorLine(error)}. The connection keeps trying; calls made meanwhile wait for it. ` +
    `Listen for the RedisSMQ instance's "error" event to handle these (this warning is shown once per error).`
  );
}
