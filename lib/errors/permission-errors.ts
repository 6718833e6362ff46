/**
 * Redis ACL refusals, turned into one named error that says which operation was refused, what the
 * user lacks (a command, a key or a channel), how to grant it, and which document lists the
 * permissions of each role.
 *
 * Redis words a refusal differently depending on where it happened: a command sent by the client
 * ("NOPERM this user has no permissions to run the 'evalsha' command"), a key or a channel
 * ("NOPERM ... access one of the keys used as arguments"), or a command a script called. The last
 * one names no command on Redis 7.0 ("ERR The user executing the script can't run this command or
 * subcommand script: <sha>, on @user_script:50."), so the command is read from that line of the
 * script's own text. The line counts the `#!lua` shebang when the flagged text ran, which is
 * why the text is found by its SHA1 among the script's two bodies. On Redis 7+ a script that writes
 * with more than one command checks its commands before its first write and answers a refusal
 * itself, in the first form ("NOPERM this user has no permissions to run the 'hset' command").
 */
import { rsmqError } from "./rsmq-errors";
import type { Script, ScriptBody } from "../scripts/script-files";

/** The document that lists, per role, the ACL rules rsmq-next needs (shipped in the package). */
export const ACL_DOC = "rsmq-next's docs/acl.md";

/** What an operation was doing when Redis refused it. */
export interface RefusedOperation {
  /** The operation's name as users call it (sendMessage, listQueues, ...). */
  readonly operation: string;
  /** The script it ran, if it ran one: a refusal inside it is mapped to the command on its line. */
  readonly script?: Script;
  /** The keys it used, named when a key was refused. */
  readonly keys?: readonly string[];
  /** The channel it used, named when a channel was refused. */
  readonly channel?: string;
  /** The command that was refused, when the caller knows it and Redis' message may not say. */
  readonly command?: string;
}

const SCRIPT_REFUSAL = /can't run this command|can't access at least one of the keys|can't publish to the channel|ACL failure in script/;

/** Whether `error` is a Redis ACL refusal (of a command, key or channel, sent directly or by a script). */
export function isPermissionRefusal(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  return error.message.startsWith("NOPERM") || SCRIPT_REFUSAL.test(error.message);
}

/**
 * `noPermission` for a Redis ACL refusal, saying what `refused.operation` lacks; any other error
 * is returned as it is.
 */
export function permissionError(error: unknown, refused: RefusedOperation): unknown {
  if (!isPermissionRefusal(error)) return error;
  return rsmqError(
    "noPermission",
    `${refused.operation} was refused by the Redis ACL: ${lacking(error.message, refused)}; ` +
      `see ${ACL_DOC}. (Redis said: ${error.message.trim()})`,
  );
}

/** What the user lacks and how to grant it, in a few words. */
function lacking(message: string, refused: RefusedOperation): string {
  const named = namedCommand(message);
  if (named) return grantCommand(named);
  if (/channel/i.test(message)) {
    const channel = refused.channel ?? "the queue's realtime channel";
    return `the user may not use the channel ${channel} (grant it with &${refused.channel ?? "<ns>:rt:*"})`;
  }
  if (/\bkeys?\b/i.test(message)) {
    const keys = refused.keys && refused.keys.length > 0 ? refused.keys.join(", ") : "the queue's keys";
    return `the user may not access the keys ${keys} (grant a key pattern that covers them, like ~<ns>:*)`;
  }
  const command = refused.command ?? commandOnScriptLine(message, refused.script);
  return command ? grantCommand(command) : "the user lacks a command this operation needs";
}

function grantCommand(command: string): string {
  return `the user may not run ${command.toUpperCase()} (add +${command.toLowerCase()} to the user)`;
}

/** The command Redis names in the message, when it names one ("... run the 'evalsha' command"). */
function namedCommand(message: string): string | undefined {
  return /'([\w|]+)' command/.exec(message)?.[1];
}

/** The command called on the line of the script that Redis reports ("script: <sha>, on @user_script:50"). */
export function commandOnScriptLine(message: string, script: Script | undefined): string | undefined {
  const where = /script: ([0-9a-f]{40}), on @user_script:(\d+)/.exec(message);
  if (!where || !script) return undefined;
  const bodies: ScriptBody[] = [script, script.flagged, ...(script.granted ? [script.granted.plain, script.granted.flagged] : [])];
  const body = bodies.find((candidate) => candidate.sha1 === where[1]);
  const line = body?.source.split("\n")[Number(where[2]) - 1];
  return line === undefined ? undefined : /call\("([A-Za-z]+)"/.exec(line)?.[1];
}
