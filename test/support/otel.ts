/**
 * The real OpenTelemetry SDK for the telemetry suites: a tracer provider whose spans land in
 * memory, a meter provider read on demand (a MetricReader's collect()), the W3C propagator, and
 * the AsyncLocalStorage context manager (registered globally while a suite runs: `context.with`
 * does nothing without one).
 */
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { AggregationTemporality, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import type { DataPoint, Histogram, MetricData } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";

/** A reader that exports nothing by itself: the test collects when it wants the figures. */
class OnDemandReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

export interface OtelSdk {
  readonly tracerProvider: BasicTracerProvider;
  readonly meterProvider: MeterProvider;
  readonly propagator: W3CTraceContextPropagator;
  readonly exporter: InMemorySpanExporter;
  /** The spans ended so far. */
  spans(): ReadableSpan[];
  /** The metrics recorded so far, by name. */
  metrics(): Promise<Map<string, MetricData>>;
  shutdown(): Promise<void>;
}

export function otelSdk(): OtelSdk {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    propagator: new W3CTraceContextPropagator(),
    exporter,
    spans: () => exporter.getFinishedSpans(),
    metrics: async () => {
      const { resourceMetrics } = await reader.collect();
      const byName = new Map<string, MetricData>();
      for (const scope of resourceMetrics.scopeMetrics) for (const metric of scope.metrics) byName.set(metric.descriptor.name, metric);
      return byName;
    },
    shutdown: async () => {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** Registers the AsyncLocalStorage context manager globally; returns its removal. */
export function useContextManager(): () => void {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  return () => {
    manager.disable();
    context.disable();
  };
}

/** A metric's data points as `{ attributes, value }`, `value` a number (a sum) or a histogram. */
export function pointsOf(metric: MetricData | undefined): Array<DataPoint<number | Histogram>> {
  return (metric?.dataPoints ?? []) as Array<DataPoint<number | Histogram>>;
}

/** The sum of a counter's points whose attributes include `where`. */
export function sumWhere(metric: MetricData | undefined, where: Record<string, unknown>): number {
  return pointsOf(metric)
    .filter((point) => Object.entries(where).every(([key, value]) => point.attributes[key] === value))
    .reduce((sum, point) => sum + (typeof point.value === "number" ? point.value : point.value.count), 0);
}

/** The spans named `name`. */
export function spansNamed(spans: ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}
