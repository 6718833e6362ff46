/**
 * Starts an instance's OpenTelemetry telemetry from its checked `telemetry` option: loads the API
 * (only now), gets a tracer and a meter from the providers given or the API's globals, adds the
 * Recorder to the hub and sets its Tracing. Without the API installed it does nothing (see load-api.ts).
 */
import type { MeterProvider, TextMapPropagator, TracerProvider } from "@opentelemetry/api";
import type { TelemetryHub } from "../telemetry-hub";
import type { ResolvedTelemetry } from "../telemetry-options";
import type { ServerAddress } from "../server-address";
import { loadOpenTelemetryApi } from "./load-api";
import { OtelRecorder } from "./otel-recorder";
import { OtelTracing } from "./otel-tracing";

/** The instrumentation scope's name. */
export const SCOPE = "rsmq-next";

/** Wires the hub; returns whether the API was there. */
export function startOpenTelemetry(hub: TelemetryHub, settings: ResolvedTelemetry, server: ServerAddress): boolean {
  const api = loadOpenTelemetryApi();
  if (!api) return false;
  if (settings.metrics) {
    const provider = (settings.meterProvider as MeterProvider | undefined) ?? api.metrics;
    hub.add(new OtelRecorder(provider.getMeter(SCOPE)));
  }
  if (settings.tracing) {
    const provider = (settings.tracerProvider as TracerProvider | undefined) ?? api.trace;
    hub.tracing = new OtelTracing(api, {
      tracer: provider.getTracer(SCOPE),
      propagator: settings.propagator as TextMapPropagator | undefined,
      processContext: settings.processContext,
      carryContext: settings.carryContext,
      server,
    });
  }
  return true;
}
