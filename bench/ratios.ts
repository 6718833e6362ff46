/**
 * The throughput and CPU ratios the tables print: the ratio of the medians, so that dividing the
 * printed columns gives the printed ratio, and beside it the range of the ratios taken within each
 * round (the noise between rounds). Older runs (no `parts` in their record) stored the median
 * of the per-round ratios; the report recomputes every ratio from the medians and the samples instead.
 */

/** What a ratio needs of a throughput row: its medians and its samples, one per round, in round order. */
export interface MeasuredRow {
  key: string;
  perSecond: number;
  cpuMicrosPerMessage: number;
  samples: ReadonlyArray<{ perSecond: number; cpuMicrosPerMessage: number }>;
  baseline: string;
  floor?: string;
  callsPerMessage?: number;
}

export interface Range {
  min: number;
  max: number;
}

export interface RowRatios {
  /** msg/s / the baseline's msg/s (medians); 1 for a baseline. */
  throughput: number;
  /** Redis CPU per message / the baseline's (medians). */
  cpu: number;
  /** The per-round range of msg/s / the baseline's msg/s; undefined for a baseline or without samples. */
  throughputByRound?: Range;
  /** Calls a second / the floor's calls a second (medians); only where there is a floor. */
  floor?: number;
}

function rangeOf(values: number[]): Range | undefined {
  const finite = values.filter(Number.isFinite);
  return finite.length === 0 ? undefined : { min: Math.min(...finite), max: Math.max(...finite) };
}

/** The ratios of `row` against its baseline (and floor) among `rows`; undefined when its baseline is missing. */
export function ratiosOf(rows: readonly MeasuredRow[], row: MeasuredRow): RowRatios | undefined {
  const base = rows.find((entry) => entry.key === row.baseline);
  if (!base) return undefined;
  const floor = row.floor === undefined ? undefined : rows.find((entry) => entry.key === row.floor);
  const rounds = Math.min(row.samples.length, base.samples.length);
  return {
    throughput: row === base ? 1 : row.perSecond / base.perSecond,
    cpu: row === base ? 1 : row.cpuMicrosPerMessage / base.cpuMicrosPerMessage,
    ...(row !== base && {
      throughputByRound: rangeOf(Array.from({ length: rounds }, (_, i) => row.samples[i].perSecond / base.samples[i].perSecond)),
    }),
    ...(floor && row.callsPerMessage !== undefined && { floor: (row.perSecond * row.callsPerMessage) / floor.perSecond }),
  };
}
