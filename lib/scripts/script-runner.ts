/**
 * Runs a script in one round trip: EVALSHA, and only when the server answers NOSCRIPT (restart,
 * failover, SCRIPT FLUSH, or a server that never saw it) one EVAL, which also caches it again.
 * A NOSCRIPT reply means the script did not run, so the fallback runs it exactly once.
 */
import type { Script } from "./script-files";

/** The one thing the runner needs from a connection. */
export interface CommandSender {
  sendCommand(args: string[]): Promise<unknown>;
}

export class ScriptRunner {
  constructor(private readonly sender: CommandSender) {}

  async run(script: Script, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    if (keys.length !== script.numberOfKeys) {
      throw new Error(`rsmq-next: ${script.name} takes ${script.numberOfKeys} keys, got ${keys.length}`);
    }
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await this.sender.sendCommand(["EVALSHA", script.sha1, ...tail]);
    } catch (error) {
      if (!isNoScript(error)) throw error;
    }
    return this.sender.sendCommand(["EVAL", script.source, ...tail]);
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("NOSCRIPT");
}
