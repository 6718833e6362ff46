/**
 * Runs a script in one round trip: EVALSHA, and only when the server answers NOSCRIPT (restart,
 * failover, SCRIPT FLUSH, or a server that never saw it) one EVAL, which also caches it again.
 * A NOSCRIPT reply means the script did not run, so the fallback runs it exactly once.
 *
 * A script that only reads goes as EVALSHA_RO (and EVAL_RO), Redis 7's read-only twins: Redis
 * cannot tell from a SHA1 it has not cached whether the script writes, so it holds a plain EVALSHA
 * of it through `CLIENT PAUSE WRITE` (FAILOVER's pause) before it answers NOSCRIPT; the _RO form
 * declares the call a read, so it is answered at once, cached or not.
 *
 * Each script goes out behind its Redis 7 shebang (Script.flagged). A server before Redis 7 cannot
 * compile a shebang and knows no _RO command, and an ACL written before this release may grant
 * EVALSHA and EVAL only: the first such refusal (nothing ran) makes the runner send plain scripts,
 * or plain EVALSHA and EVAL for reads, for the rest of that connection. A reconnect may reach
 * another server (restarted, upgraded, failed over), so the next connection is asked afresh. On
 * Redis 7 this costs nothing: no extra command.
 */
import type { CommandSender } from "../transports/transport";
import type { Script } from "./script-files";

/** What the runner learnt of a connection, for the connection epoch it learnt it on. */
interface Learnt {
  readonly epoch: number | undefined;
}

/** Runs scripts on one connection: EVALSHA, one EVAL on NOSCRIPT (see the file header). */
export class ScriptRunner {
  /** The connection epoch on which the server refused a shebang; null while none did. */
  private plainSince: Learnt | null = null;
  /** The connection epoch on which the server refused EVALSHA_RO or EVAL_RO; null while none did. */
  private noReadOnlySince: Learnt | null = null;

  constructor(private readonly sender: CommandSender) {}

  /**
   * Runs `script`; through `sender` instead of the runner's own when given (a write confirmed by
   * replicas). The usual case, EVALSHA answered, is one promise with no async layer: every
   * operation goes through here, and each layer costs more client CPU than the rest of the call.
   */
  run(script: Script, keys: readonly string[], args: readonly string[], sender = this.sender): Promise<unknown> {
    if (script.numberOfKeys !== "any" && keys.length !== script.numberOfKeys) {
      return Promise.reject(new Error(`rsmq-next: ${script.name} takes ${script.numberOfKeys} keys, got ${keys.length}`));
    }
    const epoch = this.sender.connectionEpoch;
    const plain = this.plainSince !== null && this.plainSince.epoch === epoch;
    const readOnly =
      script.readOnly &&
      this.sender.readOnlyScriptCommands !== false &&
      (this.noReadOnlySince === null || this.noReadOnlySince.epoch !== epoch);
    const body = plain ? script : script.flagged;
    const evalsha = [readOnly ? "EVALSHA_RO" : "EVALSHA", body.sha1, String(keys.length), ...keys, ...args];
    // Nothing ran when a command is refused: running the call again by the plain commands is safe.
    const withoutReadOnly = (): Promise<unknown> => {
      this.noReadOnlySince = { epoch };
      return this.run(script, keys, args, sender);
    };
    return sender.sendCommand(evalsha, keys[0]).then(undefined, (error: unknown) => {
      if (readOnly && isReadOnlyCommandRefused(error)) return withoutReadOnly();
      if (!isNoScript(error)) throw error;
      const evalArgs = [readOnly ? "EVAL_RO" : "EVAL", body.source, ...evalsha.slice(2)];
      return sender.sendCommand(evalArgs, keys[0]).then(undefined, (compileError: unknown) => {
        if (readOnly && isReadOnlyCommandRefused(compileError)) return withoutReadOnly();
        // A compile error means nothing ran, so running the plain text once more is safe.
        if (plain || !isShebangRefused(compileError)) throw compileError;
        this.plainSince = { epoch };
        // Now on the plain path: EVALSHA of the plain text, and EVAL only if that is not cached.
        return this.run(script, keys, args, sender);
      });
    });
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("NOSCRIPT");
}

/** What a server before Redis 7 answers to a script that starts with `#!`. */
function isShebangRefused(error: unknown): boolean {
  return error instanceof Error && /Error compiling script.*'#'/.test(error.message);
}

/**
 * EVALSHA_RO or EVAL_RO refused before it ran: unknown to the server (before Redis 7, or renamed
 * away: "ERR unknown command `EVALSHA_RO`, with args beginning with: ...", quoted with ' on Redis 7),
 * or not granted by the user's ACL ("NOPERM ... run the 'evalsha_ro' command").
 */
function isReadOnlyCommandRefused(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return /^ERR unknown command\W+EVAL(SHA)?_RO\b/i.test(error.message) || /^NOPERM\b.*'eval(sha)?_ro' command/i.test(error.message);
}
