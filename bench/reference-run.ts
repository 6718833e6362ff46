/**
 * The run before issue 37, which some of its goals are held against ("at least 1.5x its own figure
 * before this issue"): the committed full run bench/results/2026-12-01.json. Each run copies the
 * rows those goals quote from that file when it is made, so the record holds what its goals were
 * held against and `--from` re-renders it the same later. Those rows come from another run, on
 * whatever machine and load it had: the goals say so, and the record keeps its processor and load.
 */
import { existsSync, readFileSync } from "fs";
import { join } from "path";
import { machineState } from "./machine-load";
import type { LoadRecord } from "./machine-load";
import type { ThroughputResult } from "./suite";

/** The run before issue 37, relative to the repository root. */
export const REFERENCE_RUN_FILE = "bench/results/2026-12-01.json";

/** The rows of it the goals quote. */
export const REFERENCE_KEYS = [
  "rsmq-next Worker C=1",
  "rsmq-next Worker C=50",
  // Their baselines: the goals divide each run's Worker by that run's rsmq 0.12.4 first, so that the
  // machine's speed on the day (which moves both alike) drops out.
  "rsmq receive+delete C=1",
  "rsmq receive+delete C=50",
] as const;

export type ReferenceRow = Pick<ThroughputResult, "key" | "how" | "perSecond" | "cpuMicrosPerMessage" | "clientCpuMicrosPerMessage">;

export interface ReferenceRun {
  /** Relative to the repository root. */
  file: string;
  /** Its start, ISO. */
  date: string;
  cpuModel: string;
  cpus: number;
  /** The highest 1-minute load average it recorded. */
  peakLoad?: number;
  rows: ReferenceRow[];
}

/** Only what is read of the file (a full run's record, of any age). */
type RecordOnDisk = LoadRecord & { date: string; machine: { cpuModel: string }; throughput: ThroughputResult[] };

const ROOT = join(__dirname, "..", "..");

/** The reference run's rows, or undefined when the file is not there (a checkout without results). */
export function readReferenceRun(file: string = REFERENCE_RUN_FILE): ReferenceRun | undefined {
  const path = join(ROOT, file);
  if (!existsSync(path)) return undefined;
  const record = JSON.parse(readFileSync(path, "utf8")) as RecordOnDisk;
  const rows = REFERENCE_KEYS.flatMap((key) => {
    const row = record.throughput.find((entry) => entry.key === key);
    return row
      ? [
          {
            key: row.key,
            how: row.how,
            perSecond: row.perSecond,
            cpuMicrosPerMessage: row.cpuMicrosPerMessage,
            clientCpuMicrosPerMessage: row.clientCpuMicrosPerMessage,
          },
        ]
      : [];
  });
  const { peak } = machineState(record);
  return {
    file,
    date: record.date,
    cpuModel: record.machine.cpuModel,
    cpus: record.machine.cpus,
    ...(peak !== undefined && { peakLoad: peak }),
    rows,
  };
}
