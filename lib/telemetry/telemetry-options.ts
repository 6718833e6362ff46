/**
 * The constructor's `telemetry` option: checked at construction like every other option (a wrong
 * shape is a TypeError that names it, an unknown key is refused by name), and resolved to the
 * settings otel/ starts with. Nothing here loads `@opentelemetry/api`.
 */
import { booleanOption, optionError, queueNameOption } from "../options/checks";
import { rejectUnknownOptions } from "../options/unknown-options";
import type { TelemetryOptions } from "../types";
import { tenantLabelsProblem } from "./tenant-labels";

/** The names the object form takes. */
export const TELEMETRY_OPTION_NAMES = [
  "tracerProvider",
  "meterProvider",
  "propagator",
  "tracing",
  "metrics",
  "processContext",
  "carryContext",
  "queueState",
  "tenantLabels",
] as const;

/** The object form with every default applied (the providers and the propagator stay absent: the API's globals). */
export interface ResolvedTelemetry {
  readonly tracerProvider?: TelemetryOptions["tracerProvider"];
  readonly meterProvider?: TelemetryOptions["meterProvider"];
  readonly propagator?: TelemetryOptions["propagator"];
  readonly tracing: boolean;
  readonly metrics: boolean;
  readonly processContext: "parent" | "link";
  readonly carryContext: boolean;
  /** Observe the queue-state metrics: false (the default), every queue of the namespace, or these. */
  readonly queueState: false | "all" | readonly string[];
  /** How many tenants the wait histogram labels by name (tenant-labels.ts); 0: no tenant label. */
  readonly tenantLabels: number;
}

/** The option's check: a boolean, or an object of {@link TelemetryOptions}; returns it as given. */
export function telemetryOption(name: string, value: unknown): boolean | TelemetryOptions {
  if (typeof value === "boolean") return value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw optionError(name, "a boolean or an object of telemetry options", value);
  }
  rejectUnknownOptions(value, { what: "telemetry", names: TELEMETRY_OPTION_NAMES });
  resolveTelemetry(value as TelemetryOptions, name);
  return value as TelemetryOptions;
}

/** The settings of a checked option; undefined when telemetry is off. */
export function resolveTelemetry(value: boolean | TelemetryOptions, name = "telemetry"): ResolvedTelemetry | undefined {
  if (value === false) return undefined;
  const given: TelemetryOptions = value === true ? {} : value;
  const flag = (key: "tracing" | "metrics" | "carryContext"): boolean =>
    absent(given[key]) ? true : booleanOption(`${name}.${key}`, given[key]);
  return {
    tracerProvider: objectWith(`${name}.tracerProvider`, given.tracerProvider, ["getTracer"], "a TracerProvider (with getTracer)"),
    meterProvider: objectWith(`${name}.meterProvider`, given.meterProvider, ["getMeter"], "a MeterProvider (with getMeter)"),
    propagator: objectWith(`${name}.propagator`, given.propagator, ["inject", "extract"], "a TextMapPropagator (with inject and extract)"),
    tracing: flag("tracing"),
    metrics: flag("metrics"),
    processContext: processContextOf(`${name}.processContext`, given.processContext),
    carryContext: flag("carryContext"),
    queueState: queueStateOf(`${name}.queueState`, given.queueState),
    tenantLabels: tenantLabelsOf(`${name}.tenantLabels`, given.tenantLabels),
  };
}

function tenantLabelsOf(name: string, value: unknown): number {
  if (absent(value)) return 0;
  const problem = tenantLabelsProblem(value);
  if (problem !== undefined) throw optionError(name, problem, value);
  return value as number;
}

function queueStateOf(name: string, value: unknown): ResolvedTelemetry["queueState"] {
  if (absent(value) || value === false) return false;
  if (value === true) return "all";
  if (!Array.isArray(value) || value.length === 0) throw optionError(name, "a boolean or a non-empty array of queue names", value);
  return value.map((qname, index) => queueNameOption(`${name}[${index}]`, qname));
}

function absent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

/** An object with the given methods, or left out. */
function objectWith<T>(name: string, value: T | undefined | null, methods: readonly string[], expected: string): T | undefined {
  if (absent(value)) return undefined;
  const record = value as unknown as Record<string, unknown>;
  if (typeof value !== "object" || methods.some((method) => typeof record[method] !== "function")) {
    throw optionError(name, expected, value);
  }
  return value;
}

function processContextOf(name: string, value: unknown): "parent" | "link" {
  if (absent(value)) return "parent";
  if (value !== "parent" && value !== "link") throw optionError(name, '"parent" or "link"', value);
  return value;
}
