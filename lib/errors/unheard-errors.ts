/**
 * An error nobody listens to is still seen once. An EventEmitter with no `error` listener would
 * crash the process on `emit("error")`, which a queue consumer riding out an outage must not do;
 * dropping the error instead leaves a user with a worker that silently does nothing. So an unheard
 * error becomes a process warning (Node's convention: printed to stderr, observable with
 * `process.on("warning")`), once per error name and code for each emitter.
 */

/** One emitter's record of the unheard errors it has warned about. */
export class UnheardErrors {
  private readonly warned = new Set<string>();

  /**
   * @param code the warning's `code`
   * @param describe the warning text for an error (say who failed, what happens next, how to listen)
   */
  constructor(
    private readonly code: string,
    private readonly describe: (error: Error) => string,
  ) {}

  /** Emits a warning for `error` unless one with its name and code was emitted already. */
  report(error: unknown): void {
    const reported = error instanceof Error ? error : new Error(String(error));
    const key = `${reported.name}/${String((reported as { code?: unknown }).code ?? "")}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    process.emitWarning(this.describe(reported), { code: this.code });
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
