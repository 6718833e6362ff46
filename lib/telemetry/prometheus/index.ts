/**
 * `rsmq-next/prometheus`: rsmq-next's metrics in the application's own prom-client registry.
 * docs/telemetry.md lists the metrics. The package's main entry never loads this, nor prom-client.
 *
 * @example
 * const client = require("prom-client");
 * const { collectMetrics } = require("rsmq-next/prometheus");
 * const metrics = collectMetrics(rsmq, { registry: client.register });
 * // later: metrics.stop();
 */
import { internalsOf } from "../../internals";
import type { RedisSMQ } from "../../redis-smq";
import { QueueStateReader } from "../../queue-state/queue-state-reader";
import { checkCollectOptions } from "./options";
import type { CollectMetricsOptions } from "./options";
import type { PromRegistry } from "./prom-client-shapes";
import { inProcessNames, makeInProcessMetrics, promRecorder } from "./prom-recorder";
import type { InProcessMetrics } from "./prom-recorder";
import { queueStateNames, registerQueueStateMetrics } from "./queue-state-collector";

export type { CollectMetricsOptions } from "./options";
export type { PromClientModule, PromRegistry } from "./prom-client-shapes";

/** What collectMetrics returns. */
export interface MetricsHandle {
  /**
   * Stops recording this instance's figures and removes the metrics from the registry (the
   * in-process ones once no other instance records into them). Calling it again does nothing.
   */
  stop(): void;
}

/** The in-process metrics of one registry and prefix, shared by the instances that record into them. */
interface Shared {
  metrics: InProcessMetrics;
  users: number;
  /** Whether an instance collects the queue-state metrics into this registry and prefix. */
  queueState: boolean;
}

const sharedByRegistry = new WeakMap<PromRegistry, Map<string, Shared>>();

/** Names already in `registry` that collectMetrics would register: another metric has them. */
function taken(registry: PromRegistry, names: readonly string[]): string[] {
  return names.filter((name) => registry.getSingleMetric(name) !== undefined);
}

/**
 * Registers rsmq-next's metrics for `rsmq` in the app's prom-client `registry`: the in-process
 * counters and histograms of every call and Worker of this instance (counted in process, no
 * Redis cost), and, with `queueState`, the queue-state metrics read from Redis on each scrape
 * (one round trip for all queues on one server; nothing between scrapes). Several instances may
 * record into one registry: they share the in-process metrics. Bad options throw a TypeError
 * before anything is registered.
 *
 * @example
 * collectMetrics(rsmq, { registry: client.register, queueState: true }); // in one process only
 */
export function collectMetrics(rsmq: RedisSMQ, options: CollectMetricsOptions): MetricsHandle {
  let internals: ReturnType<typeof internalsOf>;
  try {
    internals = internalsOf(rsmq);
  } catch {
    throw new TypeError("rsmq-next/prometheus collectMetrics: Expected its first argument to be a RedisSMQ instance from rsmq-next");
  }
  const { registry, queueState, prefix, prom, tenantLabels } = checkCollectOptions(options);
  const byPrefix = sharedByRegistry.get(registry) ?? new Map<string, Shared>();
  const existing = byPrefix.get(prefix);
  if (queueState && existing?.queueState) {
    throw new TypeError(
      "rsmq-next/prometheus collectMetrics: another instance already collects the queue-state metrics into this registry (with this prefix)",
    );
  }
  if (existing && existing.metrics.tenantLabels !== tenantLabels) {
    throw new TypeError(
      `rsmq-next/prometheus collectMetrics: the metrics of this registry (with this prefix) were registered with tenantLabels ${existing.metrics.tenantLabels}, not ${tenantLabels}`,
    );
  }
  const fresh = [...(existing ? [] : inProcessNames(prefix)), ...(queueState ? queueStateNames(prefix) : [])];
  const clash = taken(registry, fresh);
  if (clash.length > 0) {
    throw new TypeError(`rsmq-next/prometheus collectMetrics: the registry already has a metric named ${clash.join(", ")}`);
  }

  const shared: Shared = existing ?? { metrics: makeInProcessMetrics(prom, registry, prefix, tenantLabels), users: 0, queueState: false };
  byPrefix.set(prefix, shared);
  sharedByRegistry.set(registry, byPrefix);
  shared.users += 1;
  const removeRecorder = internals.telemetry.add(promRecorder(shared.metrics));
  let queueStateMetrics: string[] = [];
  if (queueState) {
    const reader = new QueueStateReader(rsmq, queueState === "all" ? {} : { queues: queueState });
    queueStateMetrics = registerQueueStateMetrics(prom, registry, prefix, reader);
    shared.queueState = true;
  }

  let stopped = false;
  return {
    stop(): void {
      if (stopped) return;
      stopped = true;
      removeRecorder();
      for (const name of queueStateMetrics) registry.removeSingleMetric(name);
      if (queueStateMetrics.length > 0) shared.queueState = false;
      shared.users -= 1;
      if (shared.users === 0) {
        for (const name of shared.metrics.names) registry.removeSingleMetric(name);
        byPrefix.delete(prefix);
      }
    },
  };
}
