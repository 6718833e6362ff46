/**
 * Argument parsers for commander: each checks one value and says what was expected, so a bad
 * value is a usage error (exit 2) before anything connects.
 */
import { InvalidArgumentError } from "commander";
import { MAX_BATCH, MAX_MAXSIZE, MAX_RETENTION, MAX_SECONDS, MIN_MAXSIZE } from "../operations/rsmq-input-rules";
import { MAX_PRIORITY } from "../operations/priority";

/** An integer from min to max. */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(number) || number < min || number > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
      throw new InvalidArgumentError(`Expected an integer ${range}.`);
    }
    return number;
  };
}

/** vt and delay: whole seconds, as rsmq takes them. */
export const seconds = integer(0, MAX_SECONDS);

/** A queue's retention: whole seconds, 0 (keep for ever) up. */
export const retention = integer(0, MAX_RETENTION);

/** A message's priority: 0 (the default) to MAX_PRIORITY, larger first. */
export const priority = integer(0, MAX_PRIORITY);

/** A batch size. */
export const count = integer(1, MAX_BATCH);

/** A queue's maxsize: -1 (unlimited) or 1024 to 65536. */
export function maxsize(value: string): number {
  if (value.trim() === "-1") return -1;
  try {
    return integer(MIN_MAXSIZE, MAX_MAXSIZE)(value);
  } catch {
    throw new InvalidArgumentError(`Expected -1 (unlimited) or an integer from ${MIN_MAXSIZE} to ${MAX_MAXSIZE}.`);
  }
}

/** A positive number (a scale factor). */
export function positiveNumber(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError("Expected a number above 0.");
  return number;
}
