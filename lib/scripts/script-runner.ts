/**
 * Runs a script in one round trip: EVALSHA, and only when the server answers NOSCRIPT (restart,
 * failover, SCRIPT FLUSH, or a server that never saw it) one EVAL, which also caches it again.
 * A NOSCRIPT reply means the script did not run, so the fallback runs it exactly once.
 */
import type { Script, ScriptBody } from "./script-files";

/** The one thing the runner needs from a connection. */
export interface CommandSender {
  /** Sends one command; `firstKey` routes it in Redis Cluster (a single server ignores it). */
  sendCommand(args: string[], firstKey?: string): Promise<unknown>;
}

export interface ScriptRunnerOptions {
  /**
   * Send each script behind its Redis 7 shebang (see Script.flagged). Used in Redis Cluster; a
   * server older than Redis 7 cannot compile a shebang, and the runner then goes on without it.
   */
  flags?: boolean;
}

export class ScriptRunner {
  private flags: boolean;

  constructor(
    private readonly sender: CommandSender,
    options: ScriptRunnerOptions = {},
  ) {
    this.flags = options.flags ?? false;
  }

  /** Runs `script`; through `sender` instead of the runner's own when given (a write confirmed by replicas). */
  async run(script: Script, keys: readonly string[], args: readonly string[], sender = this.sender): Promise<unknown> {
    if (keys.length !== script.numberOfKeys) {
      throw new Error(`rsmq-next: ${script.name} takes ${script.numberOfKeys} keys, got ${keys.length}`);
    }
    if (!this.flags) return this.runBody(sender, script, keys, args);
    try {
      return await this.runBody(sender, script.flagged, keys, args);
    } catch (error) {
      // A compile error means nothing ran, so running the plain text once more is safe.
      if (!isShebangRefused(error)) throw error;
      this.flags = false;
      return this.runBody(sender, script, keys, args);
    }
  }

  private async runBody(sender: CommandSender, body: ScriptBody, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await sender.sendCommand(["EVALSHA", body.sha1, ...tail], keys[0]);
    } catch (error) {
      if (!isNoScript(error)) throw error;
    }
    return sender.sendCommand(["EVAL", body.source, ...tail], keys[0]);
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("NOSCRIPT");
}

/** What a server before Redis 7 answers to a script that starts with `#!`. */
function isShebangRefused(error: unknown): boolean {
  return error instanceof Error && /Error compiling script.*'#'/.test(error.message);
}
