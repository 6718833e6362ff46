/**
 * An operation as data: which script, its keys and arguments (all strings), and how to read the
 * reply. Building one validates the input, so bad input fails before any round trip.
 */
import { errorForScriptCode } from "../errors";

export interface Command<T> {
  readonly script: string;
  readonly keys: string[];
  readonly args: string[];
  parse(reply: unknown): T;
}

/** Scripts answer expected failures with a negative integer; anything else is the result. */
export function failIfCode(reply: unknown): void {
  if (typeof reply === "number" && reply < 0) throw errorForScriptCode(reply);
}

/** Integers go to Lua as decimal strings, never in exponent form. */
export function integerArg(value: number): string {
  return Math.trunc(value).toFixed(0);
}
