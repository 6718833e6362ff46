/**
 * Runs a script in one round trip: EVALSHA, and only when the server answers NOSCRIPT (restart,
 * failover, SCRIPT FLUSH, or a server that never saw it) one EVAL, which also caches it again.
 * A NOSCRIPT reply means the script did not run, so the fallback runs it exactly once.
 *
 * Each script goes out behind its Redis 7 shebang (Script.flagged). A server before Redis 7 cannot
 * compile a shebang; the first refusal (nothing ran) makes the runner send plain scripts for the
 * rest of that connection. A reconnect may reach another server (restarted, upgraded, failed
 * over), so the next connection is asked afresh. On Redis 7 this costs nothing: no extra command.
 */
import type { CommandSender } from "../connection/command-sender";
import type { Script } from "./script-files";

export interface ScriptRunnerOptions {
  /** Send each script behind its Redis 7 shebang when the server accepts one (default true). */
  flags?: boolean;
}

export class ScriptRunner {
  private readonly flags: boolean;
  /** The connection epoch on which the server refused a shebang; null while none did. */
  private plainSince: { epoch: number | undefined } | null = null;

  constructor(
    private readonly sender: CommandSender,
    options: ScriptRunnerOptions = {},
  ) {
    this.flags = options.flags ?? true;
  }

  /**
   * Runs `script`; through `sender` instead of the runner's own when given (a write confirmed by
   * replicas). The usual case, EVALSHA answered, is one promise with no async layer: every
   * operation goes through here, and each layer costs more client CPU than the rest of the call.
   */
  run(script: Script, keys: readonly string[], args: readonly string[], sender = this.sender): Promise<unknown> {
    if (keys.length !== script.numberOfKeys) {
      return Promise.reject(new Error(`rsmq-next: ${script.name} takes ${script.numberOfKeys} keys, got ${keys.length}`));
    }
    const epoch = this.sender.connectionEpoch;
    const plain = !this.flags || (this.plainSince !== null && this.plainSince.epoch === epoch);
    const body = plain ? script : script.flagged;
    const evalsha = ["EVALSHA", body.sha1, String(keys.length), ...keys, ...args];
    return sender.sendCommand(evalsha, keys[0]).then(undefined, (error: unknown) => {
      if (!isNoScript(error)) throw error;
      const evalArgs = ["EVAL", body.source, ...evalsha.slice(2)];
      if (plain) return sender.sendCommand(evalArgs, keys[0]);
      return sender.sendCommand(evalArgs, keys[0]).then(undefined, (compileError: unknown) => {
        // A compile error means nothing ran, so running the plain text once more is safe.
        if (!isShebangRefused(compileError)) throw compileError;
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
