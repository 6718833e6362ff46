/**
 * Checks for option values, with one message for every option the package takes: the option, what
 * was expected, and what was given, as in ``Expected `concurrency` to be an integer from 1 and up,
 * got `0` (number)``. Each check returns the value it checked, typed.
 */
import { QNAME_FORMAT, RESERVED_QNAME } from "../operations/rsmq-input-rules";

/**
 * A given value as messages show it: `5` (number), `fast` (string), `null` (object). An object
 * shows its keys only (`{ rootNode }`): its values may be credentials.
 */
export function describeValue(value: unknown): string {
  return `\`${shown(value)}\` (${typeof value})`;
}

function shown(value: unknown): string {
  if (typeof value === "function") return value.name ? `[function ${value.name}]` : "[function]";
  if (typeof value !== "object" || value === null) return String(value);
  if (Array.isArray(value)) return `[${value.length} item${value.length === 1 ? "" : "s"}]`;
  const keys = Object.keys(value);
  return keys.length === 0 ? "{}" : `{ ${keys.join(", ")} }`;
}

/** The TypeError for option `name`: ``Expected `name` to be <expected>, got <value>``. */
export function optionError(name: string, expected: string, value: unknown): TypeError {
  return new TypeError(`Expected \`${name}\` to be ${expected}, got ${describeValue(value)}`);
}

/** "from 1 and up", "from 1 to 1000". */
function range(min: number, max: number): string {
  return max === Infinity ? `from ${min} and up` : `from ${min} to ${max}`;
}

/** An integer from `min` to `max` (a safe integer, whatever `max`). */
export function integerOption(name: string, value: unknown, min: number, max = Infinity): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw optionError(name, `an integer ${range(min, max)}`, value);
  }
  return value;
}

/** A finite number from `min` up; `note` is added to the expectation (what 0 means, say). */
export function numberOption(name: string, value: unknown, min: number, note = ""): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min) {
    throw optionError(name, `a number ${range(min, Infinity)}${note}`, value);
  }
  return value;
}

export function booleanOption(name: string, value: unknown): boolean {
  if (typeof value !== "boolean") throw optionError(name, "a boolean", value);
  return value;
}

/**
 * A queue name the package's own options take (a Worker's `qname`, its `deadLetterQueue`): rsmq's
 * form, but in this module's style, since rsmq's `Invalid qname format` names no value. Not a
 * string: TypeError (a number is not turned into one); a string of the wrong form: RangeError.
 */
export function queueNameOption(name: string, value: unknown): string {
  const expected = "a queue name (1 to 160 letters, digits, `-` or `_`)";
  if (typeof value !== "string") throw optionError(name, expected, value);
  if (!QNAME_FORMAT.test(value)) throw new RangeError(optionError(name, expected, value).message);
  if (value === RESERVED_QNAME) {
    throw new RangeError(optionError(name, `a queue name other than \`${RESERVED_QNAME}\` (reserved for the queue list)`, value).message);
  }
  return value;
}
