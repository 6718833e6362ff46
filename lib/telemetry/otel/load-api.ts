/**
 * Loads `@opentelemetry/api`, an optional peer dependency, when the `telemetry` option asks for
 * it and only then: the core never requires it at load time. Not installed: nothing is recorded,
 * no call fails, and the process is told once (code RSMQ_NEXT_TELEMETRY_UNAVAILABLE).
 */
import type * as OpenTelemetryApi from "@opentelemetry/api";

export type Api = typeof OpenTelemetryApi;

let warned = false;

/** The API module, or undefined (warned once per process) when it is not installed. */
export function loadOpenTelemetryApi(): Api | undefined {
  try {
    return require("@opentelemetry/api") as Api;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw error;
    if (!warned) {
      warned = true;
      process.emitWarning(
        "rsmq-next: the `telemetry` option is on, but @opentelemetry/api is not installed: no span or metric is recorded. " +
          "Install it (npm install @opentelemetry/api) and an OpenTelemetry SDK.",
        { code: "RSMQ_NEXT_TELEMETRY_UNAVAILABLE" },
      );
    }
    return undefined;
  }
}
