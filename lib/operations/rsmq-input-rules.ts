/**
 * rsmq 0.12.4's input rules for the queue methods' arguments, applied by the operation builders
 * before any round trip, with rsmq's errors and messages (options of the constructor and the
 * Worker are checked in lib/options/checks.ts instead, in the package's own message style).
 * Each function returns the normalised value (rsmq's `parseInt` and `toString` included) and never
 * touches the caller's object.
 */
import { INVALID_FORMAT_CODES, rsmqError } from "../errors/rsmq-errors";

export const QNAME_FORMAT = /^([a-zA-Z0-9_-]){1,160}$/;
const ID_FORMAT = /^([a-zA-Z0-9:]){32}$/;

/** `<ns>:QUEUES` is the registry set; a queue of that name would overwrite it. */
export const RESERVED_QNAME = "QUEUES";

/** The largest vt or delay, in seconds, that rsmq accepts (about 115 days). */
export const MAX_SECONDS = 9999999;
/** The bounds of `maxsize`; -1 means unlimited. */
export const MIN_MAXSIZE = 1024;
export const MAX_MAXSIZE = 65536;

/** A queue name; `item` names the option in messages (`qname` for rsmq's own methods). */
export function validateQname(value: unknown, item = "qname"): string {
  if (!value) throw rsmqError("missingParameter", `No ${item} supplied`);
  const qname = String(value);
  if (!QNAME_FORMAT.test(qname)) throw rsmqError("invalidFormat", `Invalid ${item} format`, INVALID_FORMAT_CODES.qname);
  if (qname === RESERVED_QNAME) {
    throw rsmqError(
      "invalidFormat",
      `Invalid ${item} format: "${RESERVED_QNAME}" is reserved for the queue list`,
      INVALID_FORMAT_CODES.reservedQname,
    );
  }
  return qname;
}

export function validateId(value: unknown): string {
  if (!value) throw rsmqError("missingParameter", "No id supplied");
  const id = String(value);
  if (!ID_FORMAT.test(id)) throw rsmqError("invalidFormat", "Invalid id format", INVALID_FORMAT_CODES.id);
  return id;
}

/** vt or delay in seconds: rsmq parses with `parseInt(value, 10)`, so "5abc" is 5 and 1.9 is 1. */
export function validateSeconds(item: "vt" | "delay", value: unknown): number {
  const seconds = parseInt(value as string, 10);
  if (Number.isNaN(seconds) || seconds < 0 || seconds > MAX_SECONDS) {
    throw rsmqError("invalidValue", `${item} must be between 0 and ${MAX_SECONDS}`);
  }
  return seconds;
}

/** The longest retention, in seconds: rsmq's largest vt or delay (about 115 days). */
export const MAX_RETENTION = MAX_SECONDS;

/**
 * A queue's retention in seconds: a whole number from 0 (keep for ever) to MAX_RETENTION. A new
 * attribute, so no parseInt leniency: "5abc" and 1.5 are refused, in the style of vt and delay.
 */
export function validateRetention(value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > MAX_RETENTION) {
    throw rsmqError("invalidValue", `retention must be a whole number of seconds between 0 and ${MAX_RETENTION}`);
  }
  return value;
}

/** Where a queue's expired messages go: a queue name other than `qname`, or "" to delete them. */
export function validateExpireTo(value: unknown, qname: string): string {
  if (value === "") return "";
  if (typeof value !== "string") throw rsmqError("invalidValue", 'expireTo must be a queue name, or "" to delete expired messages');
  const target = validateQname(value, "expireTo");
  if (target === qname) throw rsmqError("invalidValue", "expireTo must name another queue than qname");
  return target;
}

export function validateMaxsize(value: unknown): number {
  const maxsize = parseInt(value as string, 10);
  if (maxsize === -1) return maxsize;
  if (Number.isNaN(maxsize) || maxsize < MIN_MAXSIZE || maxsize > MAX_MAXSIZE) {
    throw rsmqError("invalidValue", `maxsize must be between ${MIN_MAXSIZE} and ${MAX_MAXSIZE}`);
  }
  return maxsize;
}

export function validateMessage(value: unknown): string {
  if (typeof value !== "string") throw rsmqError("messageNotString", "Message must be a string");
  return value;
}

/** rsmq reads absent options with `!= null`: both undefined and null mean "not given". */
export function isGiven<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}

/** The most messages one batch call takes or deletes: a script blocks Redis while it runs. */
export const MAX_BATCH = 1000;

/** A batch size: an integer from 1 to MAX_BATCH (no parseInt leniency: this is a new option). */
export function validateBatchSize(item: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_BATCH) {
    throw rsmqError("invalidValue", `${item} must be an integer between 1 and ${MAX_BATCH}`);
  }
  return value;
}

/** A list of 1 to MAX_BATCH message ids, each checked like `id`. */
export function validateIds(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) throw rsmqError("missingParameter", "No ids supplied");
  if (value.length > MAX_BATCH) throw rsmqError("invalidValue", `ids must hold at most ${MAX_BATCH} ids`);
  return value.map(validateId);
}

/** A positive whole number for a new option (no parseInt leniency). */
export function validatePositiveInteger(item: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw rsmqError("invalidValue", `${item} must be an integer from 1 up`);
  }
  return value;
}
