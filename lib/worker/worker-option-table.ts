/**
 * Every option of the Worker, declared once: its default, its check, and the `worker` command's
 * flag for it. The rest follows from this table.
 * - Derived: `ResolvedWorkerOptions`, `WORKER_OPTION_NAMES` (the known options of the
 *   unknown-option error), {@link resolveWorkerOptions}, and the `worker` command's flags and the
 *   options it gives the Worker (cli/worker-flags.ts).
 * - What each option does, and its `@default`, is documented on WorkerOptions (worker-options.ts);
 *   test/docs/option-defaults.test.ts holds each `@default`, and the defaults of docs/worker.md's
 *   table, to this table.
 * - `tsc` fails when the table misses an option WorkerOptions names or holds one it does not name.
 */
import { MAX_BATCH, MAX_SECONDS } from "../operations/rsmq-input-rules";
import { RETRY_DEFAULTS, RETRY_OPTION_NAMES, RetryPolicy } from "../retry/retry-policy";
import type { RetryPolicyOptions } from "../retry/retry-policy";
import { rejectUnknownOptions } from "../options/unknown-options";
import { booleanOption, describeValue, integerOption, optionError, queueNameOption } from "../options/checks";
import type { WorkerOptions } from "./worker-options";

/**
 * The options another one follows from, as resolved (a default, or a check against another option).
 * Declared by hand, as the table's type cannot refer to itself; `tsc` holds it to ResolvedWorkerOptions.
 */
interface ReadableOptions {
  qname: string;
  concurrency: number;
  maxIdleSleepMs: number;
  onStop: "deadLetter" | "delete";
}

/** Option `name`, resolved: each option is checked once, on its first read, so one may follow from another. */
type ReadOption = <K extends keyof ReadableOptions>(name: K) => ReadableOptions[K];

/** One option of the table. */
interface WorkerOption<T> {
  /** Taken when the option is left out (undefined or null), then checked; a function derives it from other options. Absent: the check gets what was given. */
  readonly default?: T | ((read: ReadOption) => T);
  /** Checks the given value (or the default) and returns it resolved; throws a TypeError or RangeError naming the option. */
  readonly check: (name: string, value: unknown, read: ReadOption) => unknown;
  /** The `worker` command's flag(s) for it. */
  readonly cli?: WorkerFlag | WorkerFlags<T>;
}

/** A flag of the `worker` command that sets a Worker option. */
export interface WorkerFlag {
  /** As commander takes it: `"-c, --concurrency <n>"`. */
  readonly flag: string;
  readonly description: string;
  /** An integer flag's range (max absent: no bound); absent, the flag's value is the string given. */
  readonly integer?: readonly [min: number, max?: number];
  /** The value when the flag is left out, shown by the help as `(default: 1)`. */
  readonly default?: number;
}

/** Several flags that make up one option. */
export interface WorkerFlags<T> {
  readonly flags: readonly WorkerFlag[];
  /** The option, from the flags' values (undefined for one left out), in the order of `flags`. */
  readonly option: (values: ReadonlyArray<number | string | undefined>) => T;
}

export const DEFAULT_MAX_IDLE_SLEEP_MS = 30_000;
export const DEFAULT_STOP_TIMEOUT_MS = 30_000;

/** The table. Its order is the order of the known options in the unknown-option error. */
export const WORKER_OPTIONS = {
  qname: { check: (name, value) => queueNameOption(name, value) },
  handler: { check: handlerOption },
  concurrency: {
    default: 1,
    check: (name, value) => integerOption(name, value, 1),
    cli: { flag: "-c, --concurrency <n>", description: "commands running at once", integer: [1, 1000], default: 1 },
  },
  batchSize: {
    default: (read) => Math.min(read("concurrency"), MAX_BATCH),
    check: (name, value) => integerOption(name, value, 1, MAX_BATCH),
  },
  // Left out: read from the queue at each receive.
  vt: {
    check: (name, value) => (value === undefined ? undefined : integerOption(name, value, 0, MAX_SECONDS)),
    cli: {
      flag: "--vt <seconds>",
      description: "how long a message stays hidden while its command runs (extended while it runs; default: the queue's vt)",
      integer: [0, MAX_SECONDS],
    },
  },
  maxIdleSleepMs: {
    default: DEFAULT_MAX_IDLE_SLEEP_MS,
    // 0 means the default, so that a caller can pass a computed value without a branch of its own.
    check: (name, value) => integerOption(name, value, 0) || DEFAULT_MAX_IDLE_SLEEP_MS,
    cli: {
      flag: "--max-idle-sleep <ms>",
      description: `longest sleep when idle: the most a message waits whose sender published no wake (rsmq 0.12.4 without realtime) (default ${DEFAULT_MAX_IDLE_SLEEP_MS})`,
      integer: [1],
    },
  },
  minIdleSleepMs: { default: 0, check: minIdleSleepOption },
  stopTimeoutMs: { default: DEFAULT_STOP_TIMEOUT_MS, check: (name, value) => integerOption(name, value, 0) },
  realtimeWakes: { default: true, check: booleanOption },
  signal: { check: signalOption },
  retry: {
    default: {},
    check: (_name, value) => (value instanceof RetryPolicy ? value : new RetryPolicy(value as RetryPolicyOptions)),
    cli: {
      flags: [
        {
          flag: "--max-deliveries <n>",
          description: `deliveries before a failing message is dead-lettered (default ${RETRY_DEFAULTS.maxDeliveries})`,
          integer: [1],
        },
        {
          flag: "--retry-delay <ms>",
          description: `backoff after the first failure, doubling after each next one, up to 2 min (default ${RETRY_DEFAULTS.initialDelayMs})`,
          // The policy's longest delay, which the first may not pass.
          integer: [0, RETRY_DEFAULTS.maxDelayMs],
        },
      ],
      option: ([maxDeliveries, initialDelayMs]) =>
        new RetryPolicy({ maxDeliveries: maxDeliveries as number | undefined, initialDelayMs: initialDelayMs as number | undefined }),
    },
  },
  // Left out: `<qname>-dlq`; none with `onStop: "delete"`.
  deadLetterQueue: {
    check: deadLetterQueueOption,
    cli: { flag: "--dlq <qname>", description: "dead-letter queue (default <qname>-dlq)" },
  },
  onStop: { default: "deadLetter", check: onStopOption },
  schedules: { default: true, check: booleanOption },
} as const satisfies { readonly [K in keyof WorkerOptions]-?: WorkerOption<WorkerOptions[K]> };

type Table = typeof WORKER_OPTIONS;
export type WorkerOptionName = keyof Table;

/** The options with every default applied. */
export type ResolvedWorkerOptions = { -readonly [K in WorkerOptionName]: ReturnType<Table[K]["check"]> };

const readableResolved: ReadableOptions = {} as Pick<ResolvedWorkerOptions, keyof ReadableOptions>;
void readableResolved;

/** Every name WorkerOptions takes. */
export const WORKER_OPTION_NAMES = Object.keys(WORKER_OPTIONS) as readonly WorkerOptionName[];

/** The retry policy's options, where they belong when given to the worker itself. */
const NESTED_OPTION_NAMES = RETRY_OPTION_NAMES.map((name) => `retry.${name}`);

/** The options checked, each default applied: a wrong name or value throws, naming the option. */
export function resolveWorkerOptions(options: WorkerOptions): ResolvedWorkerOptions {
  if (!options || typeof options !== "object")
    throw new TypeError(`Expected worker options to be an object, got ${describeValue(options)}`);
  rejectUnknownOptions(options, { what: "worker", names: WORKER_OPTION_NAMES, nested: NESTED_OPTION_NAMES });
  const given: Readonly<Partial<Record<WorkerOptionName, unknown>>> = options;
  const resolved = new Map<WorkerOptionName, unknown>();
  const resolve = (name: WorkerOptionName): unknown => {
    if (!resolved.has(name)) resolved.set(name, resolveOne(name, given[name], read));
    return resolved.get(name);
  };
  const read: ReadOption = (name) => resolve(name) as ReadableOptions[typeof name];
  return Object.fromEntries(WORKER_OPTION_NAMES.map((name) => [name, resolve(name)])) as ResolvedWorkerOptions;
}

function resolveOne(name: WorkerOptionName, value: unknown, read: ReadOption): unknown {
  const option: WorkerOption<unknown> = WORKER_OPTIONS[name];
  if ((value === undefined || value === null) && "default" in option) {
    const fallback = option.default;
    return option.check(name, typeof fallback === "function" ? (fallback as (read: ReadOption) => unknown)(read) : fallback, read);
  }
  return option.check(name, value, read);
}

function handlerOption(name: string, value: unknown): WorkerOptions["handler"] {
  if (typeof value !== "function") throw optionError(name, "a function", value);
  return value as WorkerOptions["handler"];
}

function minIdleSleepOption(name: string, value: unknown, read: ReadOption): number {
  const minIdleSleepMs = integerOption(name, value, 0);
  const maxIdleSleepMs = read("maxIdleSleepMs");
  if (minIdleSleepMs > maxIdleSleepMs) {
    throw new RangeError(`Expected \`minIdleSleepMs\` (${minIdleSleepMs}) to be at most \`maxIdleSleepMs\` (${maxIdleSleepMs})`);
  }
  return minIdleSleepMs;
}

function signalOption(name: string, value: unknown): AbortSignal | undefined {
  if (value !== undefined && !(value instanceof AbortSignal)) throw optionError(name, "an AbortSignal", value);
  return value;
}

function onStopOption(name: string, value: unknown): "deadLetter" | "delete" {
  if (value !== "deadLetter" && value !== "delete") throw optionError(name, '"deadLetter" or "delete"', value);
  return value;
}

/** Undefined with `onStop: "delete"` (whatever was given); else the given queue or `<qname>-dlq`, never `qname` itself. */
function deadLetterQueueOption(name: string, value: unknown, read: ReadOption): string | undefined {
  const qname = read("qname");
  if (read("onStop") !== "deadLetter") return undefined;
  if (value === undefined && qname.length + "-dlq".length > 160) {
    throw new RangeError(`The default dead-letter queue name "${qname}-dlq" is longer than 160 characters: set \`deadLetterQueue\``);
  }
  const deadLetterQueue = queueNameOption(name, value ?? `${qname}-dlq`);
  if (deadLetterQueue === qname) {
    throw new RangeError(`Expected \`deadLetterQueue\` to differ from \`qname\`, got "${qname}" for both`);
  }
  return deadLetterQueue;
}
