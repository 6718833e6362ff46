/**
 * Tracing on `@opentelemetry/api`, named as the messaging semantic conventions say:
 * `{messaging.operation.name} {destination}`, the kind and `messaging.operation.type` of each
 * operation, the attributes samplers read set at start. A message's creation context travels as
 * the propagator's fields, JSON in `<id>:tp` (at most 512 characters, only when sampled).
 */
import type { Attributes, Context, Link, Span, SpanContext, SpanKind, TextMapPropagator, Tracer } from "@opentelemetry/api";
import type { OperationName } from "../recorder";
import { errorTypeOf } from "../tracing";
import type { CallSpan, Carrier, LinkedMessage, SpanAttributes, SpanStart, Tracing } from "../tracing";
import type { Api } from "./load-api";
import type { ServerAddress } from "../server-address";
import { ATTRIBUTES, SYSTEM } from "./otel-recorder";
import { MAX_CARRIER_LENGTH } from "../../operations/send-message";

export interface OtelTracingOptions {
  readonly tracer: Tracer;
  /** The propagator given; undefined for the API's global one. */
  readonly propagator: TextMapPropagator | undefined;
  readonly processContext: "parent" | "link";
  readonly carryContext: boolean;
  /** Where the instance's server is, for `server.address` and `server.port`. */
  readonly server: ServerAddress;
}

type Kind = "PRODUCER" | "CLIENT" | "CONSUMER";

/** Each operation's span kind and `messaging.operation.type`. */
const OPERATIONS: Readonly<Record<OperationName | "process", { kind: Kind; type: string }>> = {
  send: { kind: "PRODUCER", type: "send" },
  receive: { kind: "CLIENT", type: "receive" },
  pop: { kind: "CLIENT", type: "receive" },
  delete: { kind: "CLIENT", type: "settle" },
  change_visibility: { kind: "CLIENT", type: "settle" },
  // A move to a dead-letter queue sends the message there: its creation context is linked.
  dead_letter: { kind: "PRODUCER", type: "send" },
  redrive: { kind: "CLIENT", type: "send" },
  process: { kind: "CONSUMER", type: "process" },
};

export class OtelTracing implements Tracing {
  private readonly base: Attributes;

  constructor(
    private readonly api: Api,
    private readonly options: OtelTracingOptions,
  ) {
    const { address, port } = options.server;
    this.base = { [ATTRIBUTES.system]: SYSTEM };
    if (address !== undefined) this.base["server.address"] = address;
    if (port !== undefined) this.base["server.port"] = port;
  }

  readonly carry = (): Carrier => this.serialize(this.api.context.active());

  start(operation: OperationName, queue: string, how: SpanStart = {}): CallSpan {
    return this.open(operation, queue, how);
  }

  process(queue: string, message: LinkedMessage, attributes?: SpanAttributes): CallSpan {
    const { api } = this;
    const created = this.extract(message.carrier);
    const creation = created && api.trace.getSpanContext(created);
    const parent = this.options.processContext === "parent" && creation ? created : api.ROOT_CONTEXT;
    return this.open("process", queue, { attributes: { "messaging.message.id": message.id, ...attributes }, links: [message] }, parent);
  }

  private open(operation: OperationName | "process", queue: string, how: SpanStart, parentContext?: Context): CallSpan {
    const { api } = this;
    const { kind, type } = OPERATIONS[operation];
    const attributes: Attributes = {
      ...this.base,
      [ATTRIBUTES.destination]: queue,
      [ATTRIBUTES.operation]: operation,
      "messaging.operation.type": type,
    };
    copyDefined(how.attributes, attributes);
    const links = (how.links ?? []).flatMap((message) => this.linkTo(message));
    const parent = parentContext ?? (how.parent instanceof OtelSpan ? how.parent.context : api.context.active());
    const span = this.options.tracer.startSpan(
      `${operation} ${queue}`,
      { kind: api.SpanKind[kind] as SpanKind, attributes, links, startTime: how.startTime },
      parent,
    );
    return new OtelSpan(this, span, api.trace.setSpan(parent, span));
  }

  /** A link to the creation context a message carries, with its id; none when it carries none. */
  linkTo(message: LinkedMessage): Link[] {
    const context = this.extract(message.carrier);
    const spanContext: SpanContext | undefined = context && this.api.trace.getSpanContext(context);
    if (!spanContext || !this.api.isSpanContextValid(spanContext)) return [];
    return [{ context: spanContext, attributes: { "messaging.message.id": message.id } }];
  }

  /** A context's propagation fields as JSON, when it is sampled and `carryContext` is on. */
  serialize(context: Context): Carrier {
    if (!this.options.carryContext) return undefined;
    const spanContext = this.api.trace.getSpanContext(context);
    if (!spanContext || (spanContext.traceFlags & this.api.TraceFlags.SAMPLED) === 0) return undefined;
    const fields: Record<string, string> = {};
    const setter = this.api.defaultTextMapSetter;
    if (this.options.propagator) this.options.propagator.inject(context, fields, setter);
    else this.api.propagation.inject(context, fields, setter);
    if (Object.keys(fields).length === 0) return undefined;
    const carrier = JSON.stringify(fields);
    return carrier.length <= MAX_CARRIER_LENGTH ? carrier : undefined;
  }

  /** The context a carrier holds; undefined for none, or one that does not parse. */
  private extract(carrier: Carrier): Context | undefined {
    if (carrier === undefined || carrier === "") return undefined;
    let fields: unknown;
    try {
      fields = JSON.parse(carrier);
    } catch {
      return undefined;
    }
    if (typeof fields !== "object" || fields === null) return undefined;
    const { api } = this;
    const getter = api.defaultTextMapGetter;
    return this.options.propagator
      ? this.options.propagator.extract(api.ROOT_CONTEXT, fields, getter)
      : api.propagation.extract(api.ROOT_CONTEXT, fields, getter);
  }

  /** Runs `fn` in `context`. */
  within<T>(context: Context, fn: () => T): T {
    return this.api.context.with(context, fn);
  }

  failed(span: Span, error: unknown): void {
    span.setAttribute(ATTRIBUTES.errorType, errorTypeOf(error));
    span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    if (error instanceof Error) span.recordException(error);
  }
}

class OtelSpan implements CallSpan {
  constructor(
    private readonly tracing: OtelTracing,
    private readonly span: Span,
    /** The span's context: the parent of what runs within it. */
    readonly context: Context,
  ) {}

  within<T>(fn: () => T): T {
    return this.tracing.within(this.context, fn);
  }

  set(attributes: SpanAttributes): void {
    const defined: Attributes = {};
    copyDefined(attributes, defined);
    this.span.setAttributes(defined);
  }

  link(message: LinkedMessage): void {
    const links = this.tracing.linkTo(message);
    if (links.length > 0) this.span.addLinks(links);
  }

  carry(): Carrier {
    return this.tracing.serialize(this.context);
  }

  end(error?: unknown): void {
    if (error !== undefined) this.tracing.failed(this.span, error);
    this.span.end();
  }
}

function copyDefined(from: SpanAttributes | undefined, into: Attributes): void {
  if (!from) return;
  for (const [name, value] of Object.entries(from)) if (value !== undefined) into[name] = value;
}
