/**
 * The queue-state metrics (QUEUE_STATE_METRICS) as OpenTelemetry observable instruments: one
 * batch callback reads every queue once per collection (the reading the exporter and collectMetrics
 * make: one round trip for all queues on one server), and nothing is read between collections.
 * Required only when the `telemetry` option's `queueState` is on, so neither this nor the
 * queue-state reads load otherwise.
 */
import type { Attributes, BatchObservableResult, Meter, Observable } from "@opentelemetry/api";
import { queueStateSamples } from "../exposition/queue-state-families";
import type { QueueStateMetric } from "../exposition/queue-state-families";
import { QueueStateReader } from "../../queue-state/queue-state-reader";
import type { ConnectedQueues } from "../../queue-state/queue-board";
import { QUEUE_STATE_METRICS } from "../metric-names";
import { ATTRIBUTES, SYSTEM } from "./otel-recorder";

/** The attribute the `state` label becomes. */
export const STATE_ATTRIBUTE = "messaging.rsmq.message.state";

/** The attribute the `schedule` label (a schedule's name) becomes. */
export const SCHEDULE_ATTRIBUTE = "messaging.rsmq.schedule";

/**
 * Observes the queue state of `instance()` (read at the first collection: the instance is still
 * being built when this is called) for every queue, or those of `queues`.
 */
export function observeQueueState(meter: Meter, instance: () => object, queues: "all" | readonly string[]): void {
  const observables = new Map<QueueStateMetric, Observable>();
  for (const [metric, definition] of Object.entries(QUEUE_STATE_METRICS) as Array<
    [QueueStateMetric, (typeof QUEUE_STATE_METRICS)[QueueStateMetric]]
  >) {
    const { unit, description } = definition;
    const observable =
      definition.instrument === "observableCounter"
        ? meter.createObservableCounter(definition.otel, { unit, description })
        : meter.createObservableGauge(definition.otel, { unit, description });
    observables.set(metric, observable);
  }
  let reader: QueueStateReader | undefined;
  meter.addBatchObservableCallback(
    async (result: BatchObservableResult) => {
      reader ??= new QueueStateReader(instance() as ConnectedQueues, { queues: queues === "all" ? undefined : queues });
      let reading;
      try {
        reading = await reader.read();
      } catch {
        // Redis could not be read: this collection has no queue-state points rather than stale ones.
        return;
      }
      for (const [metric, observable] of observables) {
        for (const sample of queueStateSamples(metric, reading)) {
          const attributes: Attributes = { [ATTRIBUTES.system]: SYSTEM, [ATTRIBUTES.destination]: sample.labels.queue };
          if (sample.labels.state !== undefined) attributes[STATE_ATTRIBUTE] = sample.labels.state;
          if (sample.labels.schedule !== undefined) attributes[SCHEDULE_ATTRIBUTE] = sample.labels.schedule;
          result.observe(observable, sample.value, attributes);
        }
      }
    },
    [...observables.values()],
  );
}
