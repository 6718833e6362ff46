/**
 * Spans and context propagation, as the facade and the Worker see them: otel/ implements it on
 * `@opentelemetry/api`. The Worker and the facade never import the API themselves, so without the
 * `telemetry` option nothing of it is loaded.
 */

/** The trace context a message carries: the propagator's fields as stored in `<id>:tp`, or undefined when none was stored. */
export type Carrier = string | undefined;

/** Spans and context propagation of one instance (see otel/). */
export interface Tracing {
  /** The context of the span running now, serialized for `<id>:tp`; undefined when there is none worth storing (none, or not sampled). */
  readonly carry?: () => Carrier;
}
