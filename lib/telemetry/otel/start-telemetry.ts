/**
 * Starts an instance's OpenTelemetry telemetry from its checked `telemetry` option: loads the API
 * (only now), gets a tracer and a meter from the providers given or the API's globals, adds the
 * Recorder to the hub and sets its Tracing. Without the API installed it does nothing (see
 * load-api.ts); without an SDK registered it does nothing either, and says so once.
 */
import type { Meter, MeterProvider, TextMapPropagator, TracerProvider } from "@opentelemetry/api";
import type { TelemetryHub } from "../telemetry-hub";
import type { ResolvedTelemetry } from "../telemetry-options";
import type { ServerAddress } from "../server-address";
import { loadOpenTelemetryApi } from "./load-api";
import type { Api } from "./load-api";
import { OtelRecorder } from "./otel-recorder";
import { OtelTracing } from "./otel-tracing";

/** otel-queue-state.ts' entry, required only when `queueState` is on. */
type ObserveQueueState = (meter: Meter, instance: () => object, queues: "all" | readonly string[]) => void;

/** The instrumentation scope's name. */
export const SCOPE = "rsmq-next";

/**
 * Wires the hub; returns whether the API was there. A provider with no SDK behind it (the API's
 * no-op ones, what the globals are until an SDK registers) is left out: recording into it would
 * cost every call and keep nothing, so the calls take the path they take without telemetry.
 */
export function startOpenTelemetry(
  hub: TelemetryHub,
  settings: ResolvedTelemetry,
  server: ServerAddress,
  /** The instance being built (typed loosely: its module imports this one). */
  instance: () => object,
): boolean {
  const api = loadOpenTelemetryApi();
  if (!api) return false;
  const meter = settings.metrics ? ((settings.meterProvider as MeterProvider | undefined) ?? api.metrics).getMeter(SCOPE) : undefined;
  const recordsMetrics = meter !== undefined && meter !== api.createNoopMeter();
  if (recordsMetrics) {
    hub.add(new OtelRecorder(meter, settings.tenantLabels));
    if (settings.queueState !== false) {
      // Loaded only now: the main entry never loads the queue-state reads (lib/queue-state/) otherwise.
      const { observeQueueState } = require("./otel-queue-state") as { observeQueueState: ObserveQueueState };
      observeQueueState(meter, instance, settings.queueState);
    }
  }
  const tracerProvider = settings.tracing
    ? ((settings.tracerProvider as TracerProvider | undefined) ?? api.trace.getTracerProvider())
    : undefined;
  const traces = tracerProvider !== undefined && !isNoopTracerProvider(api, tracerProvider);
  if (traces) {
    hub.tracing = new OtelTracing(api, {
      tracer: tracerProvider.getTracer(SCOPE),
      propagator: settings.propagator as TextMapPropagator | undefined,
      processContext: settings.processContext,
      carryContext: settings.carryContext,
      server,
    });
  }
  if (!recordsMetrics && !traces) warnNoSdk();
  return true;
}

/** The API's global tracer provider is a proxy; with no SDK registered, it hands out the no-op provider. */
function isNoopTracerProvider(api: Api, provider: TracerProvider): boolean {
  const noop = new api.ProxyTracerProvider().getDelegate();
  const actual = provider instanceof api.ProxyTracerProvider ? provider.getDelegate() : provider;
  return actual === noop;
}

let warnedNoSdk = false;

/** Once per process: the option is on, but nothing would keep what it records. */
function warnNoSdk(): void {
  if (warnedNoSdk) return;
  warnedNoSdk = true;
  process.emitWarning(
    "rsmq-next: the `telemetry` option is on, but no OpenTelemetry SDK was registered when the instance was made: " +
      "no span or metric is recorded. Start the SDK (NodeSDK.start(), or register a tracer and meter provider) before creating RedisSMQ, " +
      "or pass tracerProvider and meterProvider in the option.",
    { code: "RSMQ_NEXT_TELEMETRY_NO_SDK" },
  );
}
