/**
 * Reports a lasting problem once, not on every call it affects: to the `error` listeners of an
 * emitter, or, when nobody listens, as one process warning, so it is seen either way. A problem
 * that went away and comes back is reported again.
 */
import type { EventEmitter } from "events";

export class ReportOnce {
  private readonly reported = new Set<string>();

  /**
   * @param emitter whose `error` listeners hear each problem (a RedisSMQ instance, a Worker)
   * @param emitError how to emit to them, when the emitter has its own way (counters, a listener that throws)
   */
  constructor(
    private readonly emitter: EventEmitter,
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
}
