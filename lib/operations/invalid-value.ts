/**
 * The `invalidValue` error of an option's check, in the one wording the option rules share:
 * "Expected `<item>` to be <what it takes>, got <what it got> (<its type>)".
 */
import { rsmqError } from "../errors/rsmq-errors";

function describe(value: unknown): string {
  if (typeof value === "string") return `"${value}" (string)`;
  if (value instanceof Date) return `${String(value)} (Date)`;
  return `${String(value)} (${value === null ? "null" : typeof value})`;
}

/** The error for `item`, which takes `expected` and got `value`. */
export function invalidValue(item: string, expected: string, value: unknown): Error {
  return rsmqError("invalidValue", `Expected \`${item}\` to be ${expected}, got ${describe(value)}`);
}

/** `value` when it is a whole number from `min` to `max` (`unit` after "whole number" in the error: " of ms"), else throws. */
export function wholeNumberOption(item: string, value: unknown, min: number, max: number, unit = ""): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalidValue(item, `a whole number${unit} from ${min} to ${max}`, value);
  }
  return value;
}
