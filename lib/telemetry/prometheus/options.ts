/**
 * collectMetrics' options, checked before anything is registered: a wrong one throws a TypeError
 * naming it, and the registry is left as it was.
 */
import { QNAME_FORMAT, RESERVED_QNAME } from "../../operations/rsmq-input-rules";
import type { PromClientClasses, PromClientModule, PromRegistry } from "./prom-client-shapes";
import { tenantLabelsProblem } from "../tenant-labels";

/** The options of `collectMetrics` (rsmq-next/prometheus). */
export interface CollectMetricsOptions {
  /** The prom-client Registry to register the metrics in (prom-client's `register`, or a `new Registry()`). */
  registry: PromRegistry;
  /**
   * Also collect the queue-state metrics (depth by state, age of the oldest visible message, next
   * due time, rsmq's totalsent and totalrecv), read from Redis on each scrape of the registry:
   * `true` for every queue of the namespace, or a list of queue names. Enable it in one process
   * only (or run `rsmq-next metrics`): every process that does reads the same state, and
   * Prometheus gets the same series from each.
   * @default false
   */
  queueState?: boolean | readonly string[];
  /**
   * Put before every metric name, e.g. `"myapp_"`.
   * @default ""
   */
  prefix?: string;
  /**
   * The prom-client module the registry comes from. Without it, `require("prom-client")` as
   * resolved from rsmq-next, which is the app's own copy in an npm or yarn install; pass it when
   * the app has several copies (the registry must be an instance of this module's Registry).
   */
  promClient?: PromClientModule;
  /**
   * Label `rsmq_message_wait_duration_seconds` by `tenant`: the first `tenantLabels` distinct
   * tenants (the `tenant` attribute) the registry's instances receive get their own value, every
   * later one `other`, messages without a tenant `none`. Each value is a series of its own (one
   * per bucket), so the number is the bound: 0 to 1000. Every collectMetrics call into one
   * registry (and prefix) gives the same value. See docs/telemetry.md.
   * @default 0 (no tenant label)
   */
  tenantLabels?: number;
}

export interface CheckedCollectOptions {
  registry: PromRegistry;
  /** undefined: no queue-state metrics; "all": every queue; else the list. */
  queueState: undefined | "all" | readonly string[];
  prefix: string;
  prom: PromClientClasses;
  /** 0: no tenant label. */
  tenantLabels: number;
}

const KNOWN = ["registry", "queueState", "prefix", "promClient", "tenantLabels"];
const PROMETHEUS_NAME_PREFIX = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

function fail(message: string): TypeError {
  return new TypeError(`rsmq-next/prometheus collectMetrics: ${message}`);
}

function isModule(value: unknown): value is PromClientModule {
  const candidate = value as Partial<Record<keyof PromClientModule, unknown>> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    ["Registry", "Counter", "Gauge", "Histogram"].every((name) => typeof candidate[name as keyof PromClientModule] === "function")
  );
}

/** prom-client, required when first needed: the package never loads it otherwise. */
function requirePromClient(): PromClientModule {
  try {
    return require("prom-client") as PromClientModule;
  } catch {
    throw fail("prom-client is not installed: `npm install prom-client`, or pass the module as `promClient`");
  }
}

function checkQueueState(value: unknown): CheckedCollectOptions["queueState"] {
  if (value === undefined || value === false) return undefined;
  if (value === true) return "all";
  if (!Array.isArray(value) || value.length === 0) {
    throw fail(
      `Expected \`queueState\` to be a boolean or a non-empty array of queue names, got ${JSON.stringify(value) ?? String(value)}`,
    );
  }
  for (const qname of value as unknown[]) {
    if (typeof qname !== "string" || !QNAME_FORMAT.test(qname) || qname === RESERVED_QNAME) {
      throw fail(`\`queueState\` names a queue that cannot exist: ${JSON.stringify(qname) ?? String(qname)}`);
    }
  }
  return [...new Set(value as string[])];
}

/** Checks every option (prom-client is required here, when none is given); throws a TypeError naming the first wrong one. */
export function checkCollectOptions(options: CollectMetricsOptions): CheckedCollectOptions {
  if (typeof options !== "object" || options === null) throw fail("Expected an options object with `registry`");
  for (const name of Object.keys(options)) {
    if (!KNOWN.includes(name)) throw fail(`Unknown option \`${name}\`; the options are ${KNOWN.join(", ")}`);
  }
  const { registry, prefix = "", promClient } = options;
  if (typeof registry !== "object" || registry === null) throw fail("Expected `registry` to be a prom-client Registry");
  if (typeof prefix !== "string" || (prefix !== "" && !PROMETHEUS_NAME_PREFIX.test(prefix))) {
    throw fail(`Expected \`prefix\` to be a Prometheus name prefix ([a-zA-Z_:][a-zA-Z0-9_:]*), got ${JSON.stringify(prefix)}`);
  }
  const queueState = checkQueueState(options.queueState);
  const tenantLabels = options.tenantLabels ?? 0;
  const problem = tenantLabelsProblem(tenantLabels);
  if (problem !== undefined)
    throw fail(`Expected \`tenantLabels\` to be ${problem}, got ${JSON.stringify(tenantLabels) ?? String(tenantLabels)}`);
  if (promClient !== undefined && !isModule(promClient)) throw fail("Expected `promClient` to be the prom-client module");
  const prom = promClient ?? requirePromClient();
  if (!(registry instanceof prom.Registry)) {
    throw fail(
      "Expected `registry` to be a Registry of the prom-client module in use: with two copies of prom-client installed, pass yours as `promClient`",
    );
  }
  // The module's classes as collectMetrics calls them (prom-client 15's constructors take these configurations).
  return { registry, queueState, prefix, prom: prom as unknown as PromClientClasses, tenantLabels };
}
