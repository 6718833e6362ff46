/**
 * The in-process metrics (IN_PROCESS_METRICS of telemetry/metric-names.ts) as prom-client
 * counters, histograms and gauges, and the Recorder that feeds them: added to an instance's
 * telemetry hub, it counts what the facade and the Worker report, in process, at no Redis cost.
 * Labels: `queue` (except on the command counts, which have no queue) and each definition's own.
 */
import { IN_PROCESS_METRICS } from "../metric-names";
import type { MetricDefinition } from "../metric-names";
import type { Recorder } from "../recorder";
import { TenantLabels } from "../tenant-labels";
import type { PromClientClasses, PromCounter, PromGauge, PromHistogram, PromLabels, PromRegistry } from "./prom-client-shapes";

type InProcessMetric = keyof typeof IN_PROCESS_METRICS;

/** The metrics whose figures carry no queue. */
const WITHOUT_QUEUE: ReadonlySet<InProcessMetric> = new Set<InProcessMetric>(["commands"]);

/** The label names of a metric, as registered; the wait's `tenant` only when asked for. */
export function labelNamesOf(metric: InProcessMetric, tenantLabels = 0): string[] {
  const definition: MetricDefinition = IN_PROCESS_METRICS[metric];
  const names = WITHOUT_QUEUE.has(metric) ? [...definition.labels] : ["queue", ...definition.labels];
  return metric === "waited" && tenantLabels > 0 ? [...names, "tenant"] : names;
}

/** The Prometheus names of the in-process metrics, `prefix` before each. */
export function inProcessNames(prefix: string): string[] {
  return Object.values(IN_PROCESS_METRICS).map((definition) => prefix + definition.prometheus);
}

/** The prom-client metrics of IN_PROCESS_METRICS, made but not registered (registerInto does that). */
export interface InProcessMetrics {
  readonly counters: Record<
    "sent" | "consumed" | "outcomes" | "visibilityExpired" | "deadLettered" | "expired" | "deduplicated" | "wakeups" | "commands",
    PromCounter
  >;
  readonly histograms: Record<"operationDuration" | "processDuration" | "waited", PromHistogram>;
  readonly gauges: Record<"inFlight" | "concurrency", PromGauge>;
  /** Their names, for their removal. */
  readonly names: readonly string[];
  /** The wait's tenant label, bounded (shared by every instance recording into them); undefined: none. */
  readonly tenants: TenantLabels | undefined;
  /** What `tenants` was made with (0: none), which every later collectMetrics call must give too. */
  readonly tenantLabels: number;
}

/** Makes the in-process metrics, registered in `registry`. */
export function makeInProcessMetrics(prom: PromClientClasses, registry: PromRegistry, prefix: string, tenantLabels = 0): InProcessMetrics {
  const config = (metric: InProcessMetric) => {
    const definition: MetricDefinition = IN_PROCESS_METRICS[metric];
    return {
      name: prefix + definition.prometheus,
      help: definition.description,
      labelNames: labelNamesOf(metric, tenantLabels),
      registers: [registry],
      ...(definition.buckets ? { buckets: definition.buckets } : {}),
    };
  };
  const counter = (metric: InProcessMetric): PromCounter => new prom.Counter(config(metric));
  const histogram = (metric: InProcessMetric): PromHistogram => new prom.Histogram(config(metric));
  const gauge = (metric: InProcessMetric): PromGauge => new prom.Gauge(config(metric));
  return {
    counters: {
      sent: counter("sent"),
      consumed: counter("consumed"),
      outcomes: counter("outcomes"),
      visibilityExpired: counter("visibilityExpired"),
      deadLettered: counter("deadLettered"),
      expired: counter("expired"),
      deduplicated: counter("deduplicated"),
      wakeups: counter("wakeups"),
      commands: counter("commands"),
    },
    histograms: {
      operationDuration: histogram("operationDuration"),
      processDuration: histogram("processDuration"),
      waited: histogram("waited"),
    },
    gauges: { inFlight: gauge("inFlight"), concurrency: gauge("concurrency") },
    names: inProcessNames(prefix),
    tenants: tenantLabels > 0 ? new TenantLabels(tenantLabels) : undefined,
    tenantLabels,
  };
}

/** `labels` with `error_type` when there is one (no empty label on the successes). */
function withError(labels: PromLabels, errorType: string | undefined): PromLabels {
  return errorType === undefined ? labels : { ...labels, error_type: errorType };
}

/**
 * A Recorder on the metrics: each call is one prom-client update. It never throws into the
 * library: a figure prom-client refuses (a negative count, say) is dropped.
 */
export function promRecorder(metrics: InProcessMetrics): Recorder {
  const { counters, histograms, gauges, tenants } = metrics;
  const safely =
    <A extends unknown[]>(update: (...args: A) => void) =>
    (...args: A): void => {
      try {
        update(...args);
      } catch {
        // A figure prom-client refuses is lost, never the caller's call.
      }
    };
  const count = (counter: PromCounter, labels: PromLabels, value: number): void => {
    if (value > 0) counter.inc(labels, value);
  };
  return {
    sent: safely((queue: string, n: number, errorType?: string) => count(counters.sent, withError({ queue }, errorType), n)),
    consumed: safely((queue: string, operation: "receive" | "pop", n: number) => count(counters.consumed, { queue, operation }, n)),
    operationDuration: safely((queue: string, operation: string, seconds: number, errorType?: string) =>
      histograms.operationDuration.observe(withError({ queue, operation }, errorType), seconds),
    ),
    processed: safely((queue: string, seconds: number, errorType?: string) =>
      histograms.processDuration.observe(withError({ queue }, errorType), seconds),
    ),
    outcome: safely((queue: string, outcome: string) => counters.outcomes.inc({ queue, outcome })),
    visibilityExpired: safely((queue: string) => counters.visibilityExpired.inc({ queue })),
    deadLettered: safely((queue: string, reason: string) => counters.deadLettered.inc({ queue, reason })),
    expired: safely((queue: string, n: number) => count(counters.expired, { queue }, n)),
    deduplicated: safely((queue: string) => counters.deduplicated.inc({ queue })),
    inFlight: safely((queue: string, delta: number) => gauges.inFlight.inc({ queue }, delta)),
    concurrency: safely((queue: string, delta: number) => gauges.concurrency.inc({ queue }, delta)),
    wakeup: safely((queue: string, cause: string, result: string) => counters.wakeups.inc({ queue, cause, result })),
    waited: safely((queue: string, seconds: number, tenant?: string) =>
      histograms.waited.observe(tenants ? { queue, tenant: tenants.label(tenant) } : { queue }, seconds),
    ),
    commands: safely((kind: string, n: number) => count(counters.commands, { kind }, n)),
  };
}
