/**
 * One client call observed: its span (when tracing), its duration and `error.type` (when
 * recording), the Redis calls it makes run inside the span's context. The facade takes this path
 * only when its hub records or traces; otherwise it runs the call as it always did.
 */
import type { OperationName, Recorder } from "./recorder";
import type { TelemetryHub } from "./telemetry-hub";
import { errorTypeOf } from "./tracing";
import type { CallSpan, SpanAttributes } from "./tracing";

export interface Observation<T> {
  /** Set on the span at start. */
  readonly attributes?: SpanAttributes;
  /** After success: the span's attributes and links from the result, and the call's own figures. */
  done?(value: T, span: CallSpan | undefined, recording: Recorder | undefined): void;
  /** After a failure: the call's own figures (the duration and span status are set here). */
  failed?(errorType: string, recording: Recorder | undefined): void;
}

/** Seconds since `started` (a performance.now() reading). */
export function secondsSince(started: number): number {
  return (performance.now() - started) / 1000;
}

/** Runs `call` (given its span) as `operation` on `queue`, observed (see the file header). */
export function observeCall<T>(
  hub: TelemetryHub,
  operation: OperationName,
  queue: string,
  call: (span: CallSpan | undefined) => Promise<T>,
  observation: Observation<T> = {},
): Promise<T> {
  const { recording, tracing } = hub;
  const started = performance.now();
  const span = tracing?.start(operation, queue, { attributes: observation.attributes });
  let running: Promise<T>;
  try {
    running = span ? span.within(() => call(span)) : call(undefined);
  } catch (error) {
    running = Promise.reject(error);
  }
  return running.then(
    (value) => {
      recording?.operationDuration(queue, operation, secondsSince(started));
      observation.done?.(value, span, recording);
      span?.end();
      return value;
    },
    (error: unknown) => {
      const errorType = errorTypeOf(error);
      recording?.operationDuration(queue, operation, secondsSince(started), errorType);
      observation.failed?.(errorType, recording);
      span?.end(error);
      throw error;
    },
  );
}
