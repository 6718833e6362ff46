/**
 * The Recorder on an OpenTelemetry Meter: one instrument per entry of IN_PROCESS_METRICS (its
 * name, unit, description, and its buckets as histogram advice), attributes as the messaging
 * semantic conventions name them, rsmq's own under `messaging.rsmq.*`. Counting writes nothing to
 * Redis.
 */
import type { Attributes, Counter, Histogram, Meter, UpDownCounter } from "@opentelemetry/api";
import { IN_PROCESS_METRICS } from "../metric-names";
import type { MetricDefinition } from "../metric-names";
import type { CommandKind, OperationName, Recorder, WakeupCause, WakeupResult, WorkerOutcome } from "../recorder";
import { TenantLabels } from "../tenant-labels";

/** The attribute names, once. */
export const ATTRIBUTES = {
  system: "messaging.system",
  destination: "messaging.destination.name",
  operation: "messaging.operation.name",
  errorType: "error.type",
  outcome: "messaging.rsmq.outcome",
  reason: "messaging.rsmq.reason",
  cause: "messaging.rsmq.cause",
  result: "messaging.rsmq.result",
  kind: "messaging.rsmq.kind",
  tenant: "messaging.rsmq.tenant",
} as const;

/** `messaging.system`: no well-known value fits, so the custom one. */
export const SYSTEM = "rsmq";

type Metric = keyof typeof IN_PROCESS_METRICS;

export class OtelRecorder implements Recorder {
  private readonly counters = new Map<Metric, Counter>();
  private readonly histograms = new Map<Metric, Histogram>();
  private readonly updowns = new Map<Metric, UpDownCounter>();
  /** The wait's tenant attribute, bounded; undefined: none (`tenantLabels` 0, the default). */
  private readonly tenants: TenantLabels | undefined;

  constructor(meter: Meter, tenantLabels = 0) {
    this.tenants = tenantLabels > 0 ? new TenantLabels(tenantLabels) : undefined;
    for (const [key, definition] of Object.entries(IN_PROCESS_METRICS) as Array<[Metric, MetricDefinition]>) {
      const { unit, description } = definition;
      if (definition.instrument === "histogram") {
        const advice = definition.buckets ? { explicitBucketBoundaries: [...definition.buckets] } : undefined;
        this.histograms.set(key, meter.createHistogram(definition.otel, { unit, description, advice }));
      } else if (definition.instrument === "updown") {
        this.updowns.set(key, meter.createUpDownCounter(definition.otel, { unit, description }));
      } else {
        this.counters.set(key, meter.createCounter(definition.otel, { unit, description }));
      }
    }
  }

  sent(queue: string, count: number, errorType?: string): void {
    this.add("sent", count, withError(onQueue(queue, "send"), errorType));
  }

  consumed(queue: string, operation: "receive" | "pop", count: number): void {
    this.add("consumed", count, onQueue(queue, operation));
  }

  operationDuration(queue: string, operation: OperationName, seconds: number, errorType?: string): void {
    this.histograms.get("operationDuration")!.record(seconds, withError(onQueue(queue, operation), errorType));
  }

  processed(queue: string, seconds: number, errorType?: string): void {
    this.histograms.get("processDuration")!.record(seconds, withError(onQueue(queue, "process"), errorType));
  }

  outcome(queue: string, outcome: WorkerOutcome): void {
    this.add("outcomes", 1, { ...onQueue(queue), [ATTRIBUTES.outcome]: outcome });
  }

  visibilityExpired(queue: string): void {
    this.add("visibilityExpired", 1, onQueue(queue));
  }

  deadLettered(queue: string, reason: string): void {
    this.add("deadLettered", 1, { ...onQueue(queue), [ATTRIBUTES.reason]: reason });
  }

  expired(queue: string, count: number): void {
    this.add("expired", count, onQueue(queue));
  }

  deduplicated(queue: string): void {
    this.add("deduplicated", 1, onQueue(queue));
  }

  inFlight(queue: string, delta: number): void {
    this.updowns.get("inFlight")!.add(delta, onQueue(queue));
  }

  concurrency(queue: string, delta: number): void {
    this.updowns.get("concurrency")!.add(delta, onQueue(queue));
  }

  wakeup(queue: string, cause: WakeupCause, result: WakeupResult): void {
    this.add("wakeups", 1, { ...onQueue(queue), [ATTRIBUTES.cause]: cause, [ATTRIBUTES.result]: result });
  }

  waited(queue: string, seconds: number, tenant?: string): void {
    const attributes = onQueue(queue);
    if (this.tenants) attributes[ATTRIBUTES.tenant] = this.tenants.label(tenant);
    this.histograms.get("waited")!.record(seconds, attributes);
  }

  commands(kind: CommandKind, count: number): void {
    this.add("commands", count, { [ATTRIBUTES.system]: SYSTEM, [ATTRIBUTES.kind]: kind });
  }

  private add(metric: Metric, value: number, attributes: Attributes): void {
    this.counters.get(metric)!.add(value, attributes);
  }
}

function onQueue(queue: string, operation?: string): Attributes {
  const attributes: Attributes = { [ATTRIBUTES.system]: SYSTEM, [ATTRIBUTES.destination]: queue };
  if (operation !== undefined) attributes[ATTRIBUTES.operation] = operation;
  return attributes;
}

function withError(attributes: Attributes, errorType: string | undefined): Attributes {
  if (errorType !== undefined) attributes[ATTRIBUTES.errorType] = errorType;
  return attributes;
}
