/**
 * An operation as data: which script, its keys and arguments (all strings), and how to read the
 * reply. Building one validates the input, so bad input fails before any round trip; the
 * OperationRunner (operation-runner.ts) runs it.
 */
import { errorForScriptCode } from "../errors/rsmq-errors";
import type { ScriptName } from "../scripts/script-files";
import type { CommandKind } from "../telemetry/recorder";

export interface Operation<T> {
  /** The lua/ script that does the work: a name that is not a file there fails `tsc`. */
  readonly script: ScriptName;
  /** What the command is for, as telemetry counts it (`rsmq.redis.commands`); housekeeping when absent. */
  readonly commandKind?: CommandKind;
  readonly keys: string[];
  readonly args: string[];
  parse(reply: unknown): T;
  /**
   * Plain commands on a key in another slot (the queue registry, in Redis Cluster): `before` runs
   * first, `after` runs after the script when its reply passes `after.onlyIf`; each is one more
   * round trip.
   */
  readonly before?: KeyedCommand;
  readonly after?: KeyedCommand & { onlyIf(reply: unknown): boolean };
}

/** One Redis command and the key that routes it. */
export interface KeyedCommand {
  readonly args: string[];
  readonly key: string;
}

/** Scripts answer expected failures with a negative integer; anything else is the result. */
export function failIfCode(reply: unknown): void {
  if (typeof reply === "number" && reply < 0) throw errorForScriptCode(reply);
}

/** Integers go to Lua as decimal strings, never in exponent form. */
export function integerArg(value: number): string {
  return Math.trunc(value).toFixed(0);
}
