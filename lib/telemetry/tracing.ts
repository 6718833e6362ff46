/**
 * Spans and context propagation, as the facade and the Worker see them: otel/ implements it on
 * `@opentelemetry/api`. The Worker and the facade never import the API themselves, so without the
 * `telemetry` option nothing of it is loaded.
 */
import type { OperationName } from "./recorder";

/** The trace context a message carries: the propagator's fields as stored in `<id>:tp`, or undefined when none was stored. */
export type Carrier = string | undefined;

/** Span attributes; an undefined value is left off. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** A message a span links to: the creation context it carries, and its id (set on the link). */
export interface LinkedMessage {
  readonly id: string;
  readonly carrier: Carrier;
}

/** One span, started by {@link Tracing.start} or {@link Tracing.process}; ended once by its caller. */
export interface CallSpan {
  /** Runs `fn` with this span as the active context, so the Redis calls made in it nest under the span. */
  within<T>(fn: () => T): T;
  set(attributes: SpanAttributes): void;
  /** Links the creation context a message carries (a message without one is not linked). */
  link(message: LinkedMessage): void;
  /** This span's context serialized for `<id>:tp`; undefined when not sampled, or with `carryContext: false`. */
  carry(): Carrier;
  /** Ends the span; with `error`, status ERROR and `error.type` (the error's name). */
  end(error?: unknown): void;
}

/** How a span starts. */
export interface SpanStart {
  /** Set at start (samplers read them). */
  readonly attributes?: SpanAttributes;
  /** Epoch ms; a span made after the fact (a Worker's receive) starts when its call did. */
  readonly startTime?: number;
  /** The parent span; by default the active context's. */
  readonly parent?: CallSpan;
  /** Messages to link at start. */
  readonly links?: readonly LinkedMessage[];
}

/** Spans and context propagation of one instance (see otel/). */
export interface Tracing {
  /** The context of the span running now, serialized for `<id>:tp`; undefined when there is none worth storing (none, or not sampled). */
  readonly carry?: () => Carrier;
  /** Starts `{operation} {queue}` with the messaging attributes (system, destination, operation, server) set. */
  start(operation: OperationName, queue: string, how?: SpanStart): CallSpan;
  /**
   * A Worker's `process <queue>` span for one message: its parent is the context the message
   * carries (or, with `processContext: "link"`, none), and it links to that context either way.
   */
  process(queue: string, message: LinkedMessage, attributes?: SpanAttributes): CallSpan;
}

/** The `error.type` of a failure: the error's name (`queueNotFound`, `connectionTimeout`), `_OTHER` when it has none of its own. */
export function errorTypeOf(error: unknown): string {
  const name = error instanceof Error ? error.name : undefined;
  return name === undefined || name === "" || name === "Error" ? "_OTHER" : name;
}
