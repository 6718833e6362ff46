/**
 * The checks of receipts (`rc`, `rcs`: the receive count of the delivery a holder received,
 * lib/types/messages.ts) and of a concurrency limit, refusing bad input with an `invalidValue`
 * error before any round trip: nothing is written. A receipt goes to Lua as the decimal text the
 * script compares with `<id>:rc`.
 */
import { rsmqError } from "../errors/rsmq-errors";
import { isGiven } from "./rsmq-input-rules";

/** The largest concurrency limit (setConcurrency). */
export const MAX_CONCURRENCY = 10_000;

function wholeFromOne(item: string, value: unknown, max = Number.MAX_SAFE_INTEGER): string {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) {
    const got = typeof value === "string" ? `"${value}" (string)` : `${String(value)} (${value === null ? "null" : typeof value})`;
    throw rsmqError(
      "invalidValue",
      `Expected \`${item}\` to be a whole number from 1${max === Number.MAX_SAFE_INTEGER ? " up" : ` to ${max}`}, got ${got}`,
    );
  }
  return value.toFixed(0);
}

/** A receipt, as its decimal text; undefined when not given (the call then acts as rsmq 0.12.4's). */
export function validateReceipt(value: unknown): string | undefined {
  return isGiven(value) ? wholeFromOne("rc", value) : undefined;
}

/** One receipt per id, as decimal texts; undefined when not given. A list of another length is refused. */
export function validateReceipts(value: unknown, idCount: number): string[] | undefined {
  if (!isGiven(value)) return undefined;
  if (!Array.isArray(value) || value.length !== idCount) {
    const got = Array.isArray(value) ? `${value.length} receipts` : String(value);
    throw rsmqError("invalidValue", `Expected \`rcs\` to hold one receipt per id (${idCount}), got ${got}`);
  }
  return value.map((rc, index) => wholeFromOne(`rcs[${index}]`, rc));
}

/** A concurrency limit: a whole number from 1 to MAX_CONCURRENCY. */
export function validateConcurrency(value: unknown): string {
  return wholeFromOne("max", value, MAX_CONCURRENCY);
}
