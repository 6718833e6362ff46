/**
 * From one reading of the queues (queue-state/'s QueueBoard: every queue of a namespace in one
 * script call, by the server's clock) to the queue-state metrics of telemetry/metric-names.ts,
 * as metric families. The exporter, the dashboard's `metrics` route and the prom-client collector
 * all make their figures here, so they agree to the sample.
 */
import type { QueueRow, QueueSchedules } from "../../queue-state/read-shapes";
import type { ScheduleFigures } from "../../operations/schedule-figures";
import { isPaused, tightestPerSecond } from "../../operations/queue-controls-read";
import { QUEUE_STATE_METRICS } from "../metric-names";
import type { MetricDefinition } from "../metric-names";
import type { FamilyType, MetricFamily, Sample } from "./exposition";

/** What the metrics need of a reading: the server's time (epoch ms) and each queue's row. */
export interface QueueReading {
  readonly now: number;
  readonly queues: readonly QueueRow[];
  /** The schedules of the queues that have any, read by the same call (absent: no schedule series). */
  readonly schedules?: readonly QueueSchedules[];
}

/** A message's state, as the `state` label names it. */
export type QueueMessageState = "visible" | "in_flight" | "delayed" | "hidden_unsplit";

/** The queue-state metrics by their key in QUEUE_STATE_METRICS. */
export type QueueStateMetric = keyof typeof QUEUE_STATE_METRICS;

/** The metrics with a series per schedule rather than per queue. */
type ScheduleMetric = "scheduleSent" | "scheduleMissed" | "scheduleOverlapped" | "scheduleNextRun";

const SCHEDULE_METRICS: ReadonlySet<string> = new Set<ScheduleMetric>([
  "scheduleSent",
  "scheduleMissed",
  "scheduleOverlapped",
  "scheduleNextRun",
]);

function isScheduleMetric(metric: QueueStateMetric): metric is ScheduleMetric {
  return SCHEDULE_METRICS.has(metric);
}

/** The figure of one schedule for a schedule metric; undefined: no series (no next run). */
function scheduleValue(metric: ScheduleMetric, schedule: ScheduleFigures): number | undefined {
  switch (metric) {
    case "scheduleSent":
      return schedule.count;
    case "scheduleMissed":
      return schedule.missed;
    case "scheduleOverlapped":
      return schedule.overlapped;
    case "scheduleNextRun":
      return schedule.nextRunAt === null ? undefined : schedule.nextRunAt / 1000;
  }
}

/** The samples of a schedule metric: one per schedule of each queue read, by queue then name. */
function scheduleSamples(metric: ScheduleMetric, reading: QueueReading): Sample[] {
  return (reading.schedules ?? []).flatMap(({ qname, schedules }) =>
    schedules.flatMap((schedule) => {
      const value = scheduleValue(metric, schedule);
      return value === undefined ? [] : [{ labels: { queue: qname, schedule: schedule.name }, value }];
    }),
  );
}

/** The figures of one queue, per metric: the samples each metric has for it. */
function samplesOf(metric: Exclude<QueueStateMetric, ScheduleMetric>, row: QueueRow): Sample[] {
  const queue = row.qname;
  switch (metric) {
    case "messages": {
      const states: Array<[QueueMessageState, number]> = [
        ["visible", row.visible],
        ["in_flight", row.inFlight],
        ["delayed", row.delayed],
      ];
      // Beyond the hidden messages one reading looks at one by one, the split stops: the rest is
      // counted apart, so that the states still add up to the queue's size.
      const unsplit = row.total - row.visible - row.inFlight - row.delayed;
      if (row.partial && unsplit > 0) states.push(["hidden_unsplit", unsplit]);
      return states.map(([state, value]) => ({ labels: { queue, state }, value }));
    }
    case "oldestVisibleAge":
      return [{ labels: { queue }, value: row.oldestAgeMs === null ? 0 : row.oldestAgeMs / 1000 }];
    case "nextDue":
      return row.nextDueAt === null ? [] : [{ labels: { queue }, value: row.nextDueAt / 1000 }];
    case "sent":
      return [{ labels: { queue }, value: row.totalsent }];
    case "received":
      return [{ labels: { queue }, value: row.totalrecv }];
    case "expired":
      return [{ labels: { queue }, value: row.totalexpired }];
    case "paused":
      return [{ labels: { queue }, value: isPaused(row.paused) ? 1 : 0 }];
    case "rateLimit": {
      const perSecond = tightestPerSecond(row.rateLimit);
      return perSecond === undefined ? [] : [{ labels: { queue }, value: perSecond }];
    }
    case "rateLimitedUntil":
      return row.rateLimitedUntil === null ? [] : [{ labels: { queue }, value: row.rateLimitedUntil / 1000 }];
    case "concurrencyLimit":
      return row.concurrency === null ? [] : [{ labels: { queue }, value: row.concurrency }];
    case "leased":
      return row.leased === null ? [] : [{ labels: { queue }, value: row.leased }];
    case "consumers":
      return [{ labels: { queue }, value: row.consumers }];
  }
}

/** The TYPE of a definition: an observable counter is a counter to Prometheus. */
export function familyType(definition: MetricDefinition): FamilyType {
  return definition.instrument === "observableCounter" || definition.instrument === "counter" ? "counter" : "gauge";
}

/** The samples of one metric for every queue of a reading, sorted by queue (the reading's order). */
export function queueStateSamples(metric: QueueStateMetric, reading: QueueReading): Sample[] {
  if (isScheduleMetric(metric)) return scheduleSamples(metric, reading);
  return reading.queues.flatMap((row) => samplesOf(metric, row));
}

/** Every queue-state metric of a reading, `prefix` before each name. */
export function queueStateFamilies(reading: QueueReading, prefix = ""): MetricFamily[] {
  return (Object.keys(QUEUE_STATE_METRICS) as QueueStateMetric[]).map((metric) => {
    const definition: MetricDefinition = QUEUE_STATE_METRICS[metric];
    return {
      name: prefix + definition.prometheus,
      help: definition.description,
      type: familyType(definition),
      samples: queueStateSamples(metric, reading),
    };
  });
}
