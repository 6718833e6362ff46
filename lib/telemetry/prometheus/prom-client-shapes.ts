/**
 * The parts of prom-client (an optional peer, the user's own copy) that collectMetrics uses, as
 * structural types: the package's declarations never name prom-client's, so an app compiles
 * against them whether prom-client is installed or not, and whatever its 15.x minor.
 */

/** A prom-client Registry (or AggregatorRegistry), as collectMetrics uses it. */
export interface PromRegistry {
  registerMetric(metric: never): void;
  getSingleMetric(name: string): unknown;
  removeSingleMetric(name: string): void;
}

/** A label set. */
export type PromLabels = Record<string, string>;

export interface PromCounter {
  inc(labels: PromLabels, value?: number): void;
  reset(): void;
}

export interface PromGauge {
  set(labels: PromLabels, value: number): void;
  inc(labels: PromLabels, value?: number): void;
  reset(): void;
}

export interface PromHistogram {
  observe(labels: PromLabels, value: number): void;
}

/** A metric's configuration, as prom-client's constructors take it. */
export interface PromMetricConfig<Metric> {
  name: string;
  help: string;
  labelNames: readonly string[];
  registers: readonly PromRegistry[];
  buckets?: readonly number[];
  collect?: (this: Metric) => void | Promise<void>;
}

/**
 * The prom-client module, `require("prom-client")`, as the `promClient` option takes it: loose
 * enough that prom-client's own declarations fit (collectMetrics checks the four classes are there).
 */
export interface PromClientModule {
  Registry: new (...args: never[]) => PromRegistry;
  Counter: new (...args: never[]) => unknown;
  Gauge: new (...args: never[]) => unknown;
  Histogram: new (...args: never[]) => unknown;
}

/** The same module as collectMetrics calls it. */
export interface PromClientClasses {
  Registry: new (...args: never[]) => PromRegistry;
  Counter: new (config: PromMetricConfig<PromCounter>) => PromCounter;
  Gauge: new (config: PromMetricConfig<PromGauge>) => PromGauge;
  Histogram: new (config: PromMetricConfig<PromHistogram>) => PromHistogram;
}
