/**
 * One instance's telemetry: the recorders that want its figures (the OpenTelemetry meter of the
 * `telemetry` option, a prom-client registry given to collectMetrics) and its tracing. With none,
 * `recording` is undefined and so is `tracing`: the hot paths test one property and go on.
 */
import type { Recorder } from "./recorder";
import type { Tracing } from "./tracing";

export class TelemetryHub {
  private readonly recorders: Recorder[] = [];
  /** The recorders as one (a fan-out with two or more); undefined with none. */
  recording: Recorder | undefined;
  /** Spans and context propagation; undefined when tracing is off. */
  tracing: Tracing | undefined;

  constructor(tracing?: Tracing) {
    this.tracing = tracing;
  }

  /** Whether calls are observed (figures or spans); when not, each runs exactly as without telemetry. */
  get observing(): boolean {
    return this.recording !== undefined || this.tracing !== undefined;
  }

  /** Adds a recorder; returns its removal. */
  add(recorder: Recorder): () => void {
    this.recorders.push(recorder);
    this.recording = fanOut(this.recorders);
    return () => {
      const index = this.recorders.indexOf(recorder);
      if (index >= 0) this.recorders.splice(index, 1);
      this.recording = fanOut(this.recorders);
    };
  }
}

function fanOut(recorders: readonly Recorder[]): Recorder | undefined {
  if (recorders.length === 0) return undefined;
  if (recorders.length === 1) return recorders[0];
  const all = [...recorders];
  const each =
    <K extends keyof Recorder>(method: K) =>
    (...args: Parameters<Recorder[K]>): void => {
      for (const recorder of all) (recorder[method] as (...a: Parameters<Recorder[K]>) => void)(...args);
    };
  return {
    sent: each("sent"),
    consumed: each("consumed"),
    operationDuration: each("operationDuration"),
    processed: each("processed"),
    outcome: each("outcome"),
    visibilityExpired: each("visibilityExpired"),
    deadLettered: each("deadLettered"),
    expired: each("expired"),
    deduplicated: each("deduplicated"),
    inFlight: each("inFlight"),
    concurrency: each("concurrency"),
    wakeup: each("wakeup"),
    waited: each("waited"),
    commands: each("commands"),
  };
}
