/**
 * How busy the machine was while the bench ran, and whether the bench may call it quiet. Each
 * part of a run records its duration and the load average (os.loadavg()) at its start and end;
 * the captions and the READMEs say "quiet machine" only when every recorded 1-minute load average
 * stayed below the core count times QUIET_LOAD_PER_CORE, and "loaded machine (load X on N cores)"
 * otherwise. A run recorded before the parts' loads were kept is never called quiet.
 */
import { loadavg } from "os";

/**
 * The 1-minute load average, per core, under which a run counts as made on a quiet machine. The
 * load includes the bench's own client and Redis (at most two busy processes, taking turns at 1 in
 * flight), which read as about 1.2 on a 2-core machine; at the core count or above, processes were
 * waiting for a core, so the timings include time spent queued behind whatever else ran.
 */
export const QUIET_LOAD_PER_CORE = 1;

/** One part of a run: how long it took and the 1, 5 and 15 minute load averages at its start and end. */
export interface PartRecord {
  name: string;
  durationMs: number;
  loadAtStart: number[];
  loadAtEnd: number[];
}

/** Part names, as recorded and as the captions look them up. */
export const PART = {
  wireCost: "wire cost",
  idle: "idle cost and poller delivery",
  throughput: "throughput",
  network: "network latency",
  workerDelivery: "Worker delivery",
  memory: "memory",
  connections: "connections",
} as const;

/** Runs one part and appends its record to `parts`. */
export async function recordPart<T>(parts: PartRecord[], name: string, run: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const loadAtStart = loadavg();
  const result = await run();
  parts.push({ name, durationMs: Date.now() - started, loadAtStart, loadAtEnd: loadavg() });
  return result;
}

/** What a run's record holds about the load (old records lack `parts` and may lack the connections' loads). */
export interface LoadRecord {
  machine: { cpus: number; loadAverageAtStart?: number[]; loadAverageAtEnd?: number[] };
  parts?: PartRecord[];
  connections?: { loadBefore?: number[]; loadAfter?: number[] };
}

/** The 1-minute loads of one part, at its start and end; undefined when the run did not record them. */
export function partLoad(record: LoadRecord, name: string): { start: number; end: number } | undefined {
  const part = record.parts?.find((entry) => entry.name === name);
  if (part) return { start: part.loadAtStart[0], end: part.loadAtEnd[0] };
  // The connections part kept its own loads before parts were recorded.
  const { loadBefore, loadAfter } = record.connections ?? {};
  if (name === PART.connections && loadBefore?.length && loadAfter?.length) return { start: loadBefore[0], end: loadAfter[0] };
  return undefined;
}

export interface MachineState {
  /** true: quiet; false: loaded; undefined: the parts' loads were not recorded and nothing recorded was high. */
  quiet: boolean | undefined;
  /** The highest 1-minute load average recorded, if any. */
  peak: number | undefined;
  cores: number;
  /** The 1-minute load under which the run counts as quiet. */
  limit: number;
}

function recordedLoads(record: LoadRecord): number[] {
  const loads = [record.machine.loadAverageAtStart?.[0], record.machine.loadAverageAtEnd?.[0]];
  for (const part of record.parts ?? []) loads.push(part.loadAtStart[0], part.loadAtEnd[0]);
  const connections = partLoad(record, PART.connections);
  if (connections) loads.push(connections.start, connections.end);
  return loads.filter((value): value is number => typeof value === "number" && Number.isFinite(value));
}

export function machineState(record: LoadRecord): MachineState {
  const cores = record.machine.cpus;
  const limit = cores * QUIET_LOAD_PER_CORE;
  const loads = recordedLoads(record);
  const peak = loads.length === 0 ? undefined : Math.max(...loads);
  if (peak !== undefined && peak >= limit) return { quiet: false, peak, cores, limit };
  return { quiet: record.parts?.length ? true : undefined, peak, cores, limit };
}

export const formatLoad = (value: number): string => value.toFixed(2);

/** "a quiet machine (load at most 1.18 on 2 cores)", "a loaded machine (load 2.40 on 2 cores)", or why neither. */
export function machineWords(record: LoadRecord): string {
  const state = machineState(record);
  const cores = `${state.cores} core${state.cores === 1 ? "" : "s"}`;
  if (state.quiet === false) return `a loaded machine (load ${formatLoad(state.peak!)} on ${cores})`;
  if (state.quiet === true) return `a quiet machine (load at most ${formatLoad(state.peak!)} on ${cores})`;
  return state.peak === undefined
    ? `a machine of ${cores}, load not recorded`
    : `a machine of ${cores}, load not recorded through the run (at most ${formatLoad(state.peak)} where it was)`;
}

/** The rule, for the captions. */
export function quietRule(record: LoadRecord): string {
  const { limit } = machineState(record);
  return (
    `"quiet" means every 1-minute load average recorded (at the start and end of each part) stayed below ${formatLoad(limit)}, ` +
    `${QUIET_LOAD_PER_CORE === 1 ? "the core count" : `${String(QUIET_LOAD_PER_CORE)} × the core count`}`
  );
}

/** For a table's caption: "Load average (1 min) 1.14 at the start of this part, 1.18 at the end." */
export function partLoadNote(record: LoadRecord, names: readonly string[]): string {
  const loads = names.map((name) => ({ name, load: partLoad(record, name) }));
  if (loads.every((entry) => entry.load === undefined)) return "Load average for this part: load not recorded.";
  const one = ({ name, load }: { name: string; load?: { start: number; end: number } }): string =>
    `${names.length > 1 ? `${name}: ` : ""}${load ? `${formatLoad(load.start)} at the start, ${formatLoad(load.end)} at the end` : "load not recorded"}`;
  return `Load average (1 min) ${names.length > 1 ? "over these parts" : "over this part"}: ${loads.map(one).join("; ")}.`;
}

/** "5.7 minutes", "42 s". */
export function formatDuration(ms: number): string {
  return ms >= 60_000 ? `${(ms / 60_000).toFixed(1)} minutes` : `${(ms / 1000).toFixed(0)} s`;
}
