/**
 * The queue-state metrics (QUEUE_STATE_METRICS) as prom-client gauges and counters whose
 * collect() reads Redis when the registry is scraped: never on a timer, and once per scrape for
 * all of them (the reader shares the reading under way, and prom-client collects every metric of
 * a scrape at once). A failed reading leaves no stale series: the queue metrics are empty and
 * `rsmq_queue_state_up` is 0.
 */
import { QUEUE_STATE_METRICS } from "../metric-names";
import type { MetricDefinition } from "../metric-names";
import { familyType, queueStateSamples } from "../exposition/queue-state-families";
import type { QueueReading, QueueStateMetric } from "../exposition/queue-state-families";
import type { QueueStateReader } from "../../queue-state/queue-state-reader";
import type { PromClientClasses, PromCounter, PromGauge, PromRegistry } from "./prom-client-shapes";

/** 1 when the last collection read the queue state, 0 when Redis could not be read. */
export const QUEUE_STATE_UP = {
  prometheus: "rsmq_queue_state_up",
  description: "1 when the last scrape read the queue state from Redis, 0 when it could not (the queue-state series are then absent).",
} as const;

/** The names the queue-state metrics take, `prefix` before each. */
export function queueStateNames(prefix: string): string[] {
  return [...Object.values(QUEUE_STATE_METRICS).map((definition) => prefix + definition.prometheus), prefix + QUEUE_STATE_UP.prometheus];
}

/** Registers the queue-state metrics in `registry`; returns their names (for their removal). */
export function registerQueueStateMetrics(
  prom: PromClientClasses,
  registry: PromRegistry,
  prefix: string,
  reader: QueueStateReader,
): string[] {
  /** This scrape's reading, or undefined when it failed. */
  const readingNow = (): Promise<QueueReading | undefined> => reader.read().catch(() => undefined);
  for (const metric of Object.keys(QUEUE_STATE_METRICS) as QueueStateMetric[]) {
    const definition: MetricDefinition = QUEUE_STATE_METRICS[metric];
    const config = {
      name: prefix + definition.prometheus,
      help: definition.description,
      labelNames: ["queue", ...definition.labels],
      registers: [registry],
    };
    if (familyType(definition) === "counter") {
      new prom.Counter({
        ...config,
        async collect(this: PromCounter) {
          const reading = await readingNow();
          this.reset();
          // rsmq's counters as they are in Redis: a counter's value is set by a reset and one increment.
          for (const sample of reading ? queueStateSamples(metric, reading) : []) this.inc({ ...sample.labels }, sample.value);
        },
      });
    } else {
      new prom.Gauge({
        ...config,
        async collect(this: PromGauge) {
          const reading = await readingNow();
          this.reset();
          for (const sample of reading ? queueStateSamples(metric, reading) : []) this.set({ ...sample.labels }, sample.value);
        },
      });
    }
  }
  new prom.Gauge({
    name: prefix + QUEUE_STATE_UP.prometheus,
    help: QUEUE_STATE_UP.description,
    labelNames: [],
    registers: [registry],
    async collect(this: PromGauge) {
      this.set({}, (await readingNow()) ? 1 : 0);
    },
  });
  return queueStateNames(prefix);
}
