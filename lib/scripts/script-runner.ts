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
 *
 * A script that checks its commands against the user's ACL before its first write (refusedCommand,
 * lua/shared/refused-command.lua) has a second text in which that check does nothing
 * (Script.granted). Once a connection has run CHECK_RIGHTS_AFTER such scripts, the runner asks
 * once, beside the next one (lua/commandsRefused-0.lua: one EVALSHA, no round trip of its own),
 * which of the checked commands the user may not run; from then on a script none of whose checked
 * commands was refused goes as its second text (its first run on a server is one NOSCRIPT and EVAL
 * more). A connection that sends only a few scripts never pays for the question. The answer holds
 * for that connection (epoch) until any call on it is refused by the ACL: a user whose rights do
 * not cover every script, or were cut since the answer. That refusal is the caller's, as before,
 * but when rights were cut after the answer, that one call may have written part of its data
 * first (docs/acl.md); from then on the connection sends the checked texts and asks no more. A
 * new connection (epoch) asks afresh.
 */
import { isPermissionRefusal } from "../errors/permission-errors";
import type { CommandSender } from "../transports/transport";
import { preCheckedCommands, script as loadScript } from "./script-files";
import type { Script } from "./script-files";

/** What the runner learnt of a connection, for the connection epoch it learnt it on. */
interface Learnt {
  readonly epoch: number | undefined;
}

/**
 * Scripts that check their commands that a connection runs before the runner asks for the user's
 * rights: the question costs Redis about as much as the checks of five sends save.
 */
export const CHECK_RIGHTS_AFTER = 32;

/** What the runner knows of the user's rights on one connection epoch. */
interface Rights extends Learnt {
  /** Scripts with a granted text run while the rights were unknown. */
  runs: number;
  /** The commands the user may not run, once the answer came (all of them if the question failed). */
  refused: ReadonlySet<string> | "asking" | undefined;
}

const EVERY_COMMAND: ReadonlySet<string> = new Set(["*"]);

/** Runs scripts on one connection: EVALSHA, one EVAL on NOSCRIPT (see the file header). */
export class ScriptRunner {
  /** The connection epoch on which the server refused a shebang; null while none did. */
  private plainSince: Learnt | null = null;
  /** The connection epoch on which the server refused EVALSHA_RO or EVAL_RO; null while none did. */
  private noReadOnlySince: Learnt | null = null;
  /** What it knows of the user's rights (see the file header). */
  private rights: Rights = { epoch: undefined, runs: 0, refused: undefined };

  constructor(private readonly sender: CommandSender) {}

  /**
   * Runs `script`; through `sender` instead of the runner's own when given (a write confirmed by
   * replicas). The usual case, EVALSHA answered, is one promise with no async layer: every
   * operation goes through here, and each layer costs more client CPU than the rest of the call.
   */
  run(script: Script, keys: readonly string[], args: readonly string[], sender = this.sender, routeKey = keys[0]): Promise<unknown> {
    if (script.numberOfKeys !== "any" && keys.length !== script.numberOfKeys) {
      return Promise.reject(new Error(`rsmq-next: ${script.name} takes ${script.numberOfKeys} keys, got ${keys.length}`));
    }
    const epoch = this.sender.connectionEpoch;
    const plain = this.plainSince !== null && this.plainSince.epoch === epoch;
    const readOnly =
      script.readOnly &&
      this.sender.readOnlyScriptCommands !== false &&
      (this.noReadOnlySince === null || this.noReadOnlySince.epoch !== epoch);
    const twin = script.granted;
    const granted = twin !== undefined && this.grants(twin.checks, epoch, routeKey);
    const body = granted ? (plain ? twin.plain : twin.flagged) : plain ? script : script.flagged;
    const evalsha = [readOnly ? "EVALSHA_RO" : "EVALSHA", body.sha1, String(keys.length), ...keys, ...args];
    // Nothing ran when a command is refused: running the call again by the plain commands is safe.
    const withoutReadOnly = (): Promise<unknown> => {
      this.noReadOnlySince = { epoch };
      return this.run(script, keys, args, sender, routeKey);
    };
    return sender.sendCommand(evalsha, routeKey).then(undefined, (error: unknown) => {
      if (readOnly && isReadOnlyCommandRefused(error)) return withoutReadOnly();
      this.noteRefusal(error, epoch);
      if (!isNoScript(error)) throw error;
      const evalArgs = [readOnly ? "EVAL_RO" : "EVAL", body.source, ...evalsha.slice(2)];
      return sender.sendCommand(evalArgs, routeKey).then(undefined, (compileError: unknown) => {
        if (readOnly && isReadOnlyCommandRefused(compileError)) return withoutReadOnly();
        this.noteRefusal(compileError, epoch);
        // A compile error means nothing ran, so running the plain text once more is safe.
        if (plain || !isShebangRefused(compileError)) throw compileError;
        this.plainSince = { epoch };
        // Now on the plain path: EVALSHA of the plain text, and EVAL only if that is not cached.
        return this.run(script, keys, args, sender, routeKey);
      });
    });
  }

  /**
   * Whether the user may run every command in `checks` on this connection, as far as the runner
   * knows; asks (once per connection, after CHECK_RIGHTS_AFTER such scripts) when it does not.
   */
  private grants(checks: readonly string[], epoch: number | undefined, routeKey: string | undefined): boolean {
    let rights = this.rights;
    if (rights.epoch !== epoch) rights = this.rights = { epoch, runs: 0, refused: undefined };
    const refused = rights.refused;
    if (refused === undefined) {
      if (++rights.runs >= CHECK_RIGHTS_AFTER) this.askRights(rights, routeKey);
      return false;
    }
    if (refused === "asking" || refused === EVERY_COMMAND) return false;
    for (let i = 0; i < checks.length; i++) if (refused.has(checks[i])) return false;
    return true;
  }

  /**
   * Asks which checked commands the user may not run (lua/commandsRefused-0.lua), by EVALSHA on
   * the runner's own connection, where the script that prompted it goes: a user that runs scripts
   * may run EVALSHA, not every one may run EVALSHA_RO. Any failure counts as every command refused
   * for this connection: the checked texts are always right, only slower.
   */
  private askRights(rights: Rights, routeKey: string | undefined): void {
    rights.refused = "asking";
    const question = { ...loadScript("commandsRefused"), readOnly: false };
    this.run(question, [], preCheckedCommands(), this.sender, routeKey).then(
      (reply) => {
        // Unless a refusal came first, which settles it (noteRefusal).
        if (rights.refused === "asking") rights.refused = Array.isArray(reply) ? new Set(reply.map(String)) : EVERY_COMMAND;
      },
      () => {
        rights.refused = EVERY_COMMAND;
      },
    );
  }

  /**
   * A call refused by the ACL: the user's rights do not cover every script, or changed since the
   * answer. Either way, the checks are not skipped again on this connection: a second cut would
   * otherwise write part of a call again.
   */
  private noteRefusal(error: unknown, epoch: number | undefined): void {
    if (!isPermissionRefusal(error)) return;
    this.rights = { epoch, runs: 0, refused: EVERY_COMMAND };
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
