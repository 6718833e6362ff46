/**
 * createDashboard's options, checked once when it is created (a wrong value fails there, naming
 * the option, the value expected and the value given), and filled with their defaults.
 */
import { MAX_PREVIEW_CHARS } from "../operations/message-page";
import type { RedisSMQ } from "../redis-smq";

/** The options of `createDashboard` (rsmq-next/dashboard). */
export interface DashboardOptions {
  /** The RedisSMQ instance to read (its namespace is the one shown). The dashboard never closes it. */
  rsmq: RedisSMQ;
  /**
   * Refuse every mutating route (405 `{"error":"readOnly"}`) and hide the actions on the page.
   * @default true
   */
  readOnly?: boolean;
  /**
   * Ms between two readings of every queue while at least one tab has the page open (100 to 3,600,000).
   * @default 2000
   */
  intervalMs?: number;
  /**
   * A queue's dead-letter queue where it is not `<qname>-dlq`, e.g. `{ orders: "orders-failed" }`.
   * @default {}
   */
  deadLetterQueues?: Record<string, string>;
  /**
   * Characters of a body the message list shows (1 to 100,000); the whole body is one click away.
   * @default 1000
   */
  previewChars?: number;
}

/** The options with their defaults applied. */
export interface CheckedDashboardOptions {
  rsmq: RedisSMQ;
  readOnly: boolean;
  intervalMs: number;
  deadLetterQueues: Record<string, string>;
  previewChars: number;
}

const KNOWN = ["rsmq", "readOnly", "intervalMs", "deadLetterQueues", "previewChars"];
/** Shortest and longest interval: faster than 10 readings a second buys nothing, slower than an hour is not live. */
const MIN_INTERVAL_MS = 100;
const MAX_INTERVAL_MS = 3_600_000;

function shown(value: unknown): string {
  if (typeof value === "string") return `\`${JSON.stringify(value)}\` (string)`;
  if (value === null) return "`null`";
  if (typeof value === "object") return `\`${Array.isArray(value) ? "array" : "object"}\``;
  return `\`${String(value)}\` (${typeof value})`;
}

function expected(name: string, what: string, value: unknown): TypeError {
  return new TypeError(`rsmq-next dashboard: Expected \`${name}\` to be ${what}, got ${shown(value)}`);
}

function isRsmq(value: unknown): value is RedisSMQ {
  const candidate = value as Partial<RedisSMQ> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.listQueuesAsync === "function" &&
    typeof candidate.redriveAsync === "function"
  );
}

function integerIn(name: string, value: unknown, min: number, max: number, unit = ""): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw expected(name, `an integer from ${min} to ${max}${unit}`, value);
  }
  return value;
}

/** Checks every option; throws a TypeError naming the first wrong one. */
export function checkDashboardOptions(options: DashboardOptions): CheckedDashboardOptions {
  if (typeof options !== "object" || options === null) throw expected("options", "an object with `rsmq`", options);
  for (const name of Object.keys(options)) {
    if (!KNOWN.includes(name)) throw new TypeError(`rsmq-next dashboard: Unknown option \`${name}\`; the options are ${KNOWN.join(", ")}`);
  }
  const { rsmq, readOnly = true, intervalMs = 2000, deadLetterQueues = {}, previewChars = 1000 } = options;
  if (!isRsmq(rsmq)) throw expected("rsmq", "a RedisSMQ instance", rsmq);
  if (typeof readOnly !== "boolean") throw expected("readOnly", "a boolean", readOnly);
  integerIn("intervalMs", intervalMs, MIN_INTERVAL_MS, MAX_INTERVAL_MS, " (ms)");
  integerIn("previewChars", previewChars, 1, MAX_PREVIEW_CHARS);
  if (typeof deadLetterQueues !== "object" || deadLetterQueues === null || Array.isArray(deadLetterQueues)) {
    throw expected("deadLetterQueues", 'an object of queue names, like { orders: "orders-failed" }', deadLetterQueues);
  }
  for (const [qname, dlq] of Object.entries(deadLetterQueues)) {
    if (typeof dlq !== "string" || dlq === "") throw expected(`deadLetterQueues.${qname}`, "a queue name", dlq);
  }
  return { rsmq, readOnly, intervalMs, deadLetterQueues: { ...deadLetterQueues }, previewChars };
}
