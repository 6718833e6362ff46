/**
 * A yes/no question on the terminal, for what cannot be undone. Asked only when stdin is a
 * terminal: a script (stdin a pipe, a file or /dev/null) is never asked, so it never hangs.
 */
import { createInterface } from "readline/promises";
import { stopOnSignals } from "./stop-signal";

/** Whether there is a person to ask: stdin is a terminal. */
export function canAsk(stdin: NodeJS.ReadStream = process.stdin): boolean {
  return Boolean(stdin.isTTY);
}

/**
 * Asks `question` (on stderr, so stdout keeps results only) and resolves whether the answer was
 * y or yes. Enter, anything else, end of input and Ctrl-C are all no; after Ctrl-C the process
 * ends by SIGINT once the command returns (see stop-signal.ts).
 */
export async function confirm(
  question: string,
  streams: { input: NodeJS.ReadStream; output: NodeJS.WriteStream } = { input: process.stdin, output: process.stderr },
): Promise<boolean> {
  // terminal: false leaves line editing, echo and Ctrl-C (as SIGINT) to the terminal itself.
  const lines = createInterface({ input: streams.input, output: streams.output, terminal: false });
  const stop = stopOnSignals();
  const ended = new Promise<string>((resolve) => lines.once("close", () => resolve("")));
  try {
    const answer = await Promise.race([lines.question(question, { signal: stop.signal }), ended]);
    return /^\s*y(es)?\s*$/i.test(answer);
  } catch {
    // The question was aborted by Ctrl-C or SIGTERM.
    streams.output.write("\n");
    return false;
  } finally {
    stop.dispose();
    lines.close();
  }
}
